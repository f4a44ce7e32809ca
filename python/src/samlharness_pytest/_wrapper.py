"""The client command `run_client` hands `samlharness run`: it calls back into the test process.

Run by the runner for each scenario as `PYTHON -I _wrapper.py SOCKET` (standard library only:
the runner gives clients a clean environment). It sends its SAMLH_* variables to the test's
process over the Unix socket, where the client function runs, and gets back the function's
result (written to SAMLH_RESULT_FILE; exit 0 on success, 1 on a reported failure) or the
traceback of what it raised (printed on stderr, no result file, exit 1: exactly how an uncaught
exception ends a Python client script, which the run contract judges `crashed`).
"""
import json
import os
import socket
import sys


def main() -> int:
    keep = ("KRB5_CONFIG", "KRB5CCNAME")
    environment = {k: v for k, v in os.environ.items() if k.startswith("SAMLH_") or k in keep}
    try:
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(sys.argv[1])
    except OSError as error:
        sys.stderr.write(f"samlharness-pytest wrapper: the test process is gone ({sys.argv[1]}: {error})\n")
        return 70
    with connection:
        connection.sendall(json.dumps(environment).encode() + b"\n")
        connection.shutdown(socket.SHUT_WR)
        chunks = []
        while True:
            chunk = connection.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    try:
        answer = json.loads(b"".join(chunks))
    except ValueError:
        sys.stderr.write("samlharness-pytest wrapper: no answer from the test process\n")
        return 70
    if "exception" in answer:
        sys.stderr.write(answer["exception"])
        return 1
    result = answer["result"]
    with open(os.environ["SAMLH_RESULT_FILE"], "w", encoding="utf-8") as file:
        json.dump(result, file)
    return 0 if result.get("outcome") == "success" else 1


if __name__ == "__main__":
    sys.exit(main())
