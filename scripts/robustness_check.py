#!/usr/bin/env python3
"""The mocks under the abuse Apache and nginx are built to survive (issue 37), on loopback only,
bounded in count and time. Python's standard library only.

    python3 scripts/robustness_check.py [--binary .build/debug/samlharness] [--json-out FILE]

Against `samlharness serve --profile shibboleth-basic` (every mock, the console on):

1. idle: 2,000 keep-alive connections, each answered once and then left open and idle, spread
   over every listener; meanwhile a normal login (SP -> IdP with HTTP Basic -> the auto-post ->
   the ACS -> the protected page) and one request to every listener must complete promptly.
2. slowloris: 500 clients that send a request head one byte a second, and 100 that announce a
   body and send it one byte a second; the normal login and requests must complete promptly.
3. per listener: a half-closed connection (request sent, then shutdown(SHUT_WR)) gets its whole
   answer; a connection reset mid-request (SO_LINGER 0) leaves the listener serving; a client
   that pipelines 2,000 requests and never reads the answers does no harm to the others.
4. refused bodies: a 20 MB body written whole before reading (as python's http.client writes
   it) gets its 413 within a second at every listener (the mocks refuse over 8 MiB; the control
   API and the console over 64 KiB), the whole body taken at line rate and the connection then
   closed (a lingering close, bounded as Apache bounds it); and through `samlharness record`,
   which forwards it to the SP mock and brings its 413 back.
5. fd exhaustion: a second serve under `prlimit --nofile=256`, then 400 connections held open:
   the process lives, the connections beyond its limit are refused or wait, and once they close
   it serves a normal login again.

Every case prints PASS or FAIL with what was expected and what came, and the figures (the
slowest normal login and request per case); exit 1 on any FAIL. Prompt means within 5 s —
a healthy server answers in milliseconds.
"""
import argparse
import asyncio
import base64
import html.parser
import json
import os
import resource
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import urllib.parse

PROMPT = 5.0
results = []


def record(case, ok, expected, got, figures=None):
    results.append({"case": case, "ok": bool(ok), "expected": expected, "got": got, "figures": figures or {}})
    print("%s  %s — expected %s; got %s" % ("PASS" if ok else "FAIL", case, expected, got), flush=True)


class Serve:
    def __init__(self, binary, args, prefix=None):
        command = (prefix or []) + [binary, "serve"] + args
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
        line = self.process.stdout.readline()
        if not line:
            raise SystemExit("robustness: serve printed no ready line: %s" % self.process.stderr.read().decode()[-2000:])
        self.ready = json.loads(line)

    def alive(self):
        return self.process.poll() is None

    def stop(self):
        if self.alive():
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
        return self.process.returncode

    def listeners(self):
        return listeners_of(self.ready)


def listeners_of(ready):
    """One URL per listener that answers a plain GET (the console's carries its token)."""
    r = ready
    return {"idp": r["idp"]["metadata"], "sp": r["sp"]["metadata"], "auth": r["auth"]["base"] + "/",
            "cas": r["cas"]["login"], "adfs": r["adfs"]["mex"], "cm": r["cm"]["authentication_document"],
            "proxy": r["proxy"]["url"] + "/", "control": r["control"]["base"] + "/health",
            "console": r.get("console")}


def split(url):
    parts = urllib.parse.urlsplit(url)
    return parts.hostname, parts.port, (parts.path or "/") + ("?" + parts.query if parts.query else "")


def read_to_end(conn):
    """Everything the peer sends until it closes."""
    raw = b""
    while True:
        chunk = conn.recv(65536)
        if not chunk:
            return raw
        raw += chunk


# A small blocking HTTP/1.1 client with cookies (the normal login), run in a thread.
def http(method, url, headers=None, body=None, cookies=None, timeout=PROMPT):
    host, port, target = split(url)
    conn = socket.create_connection((host, port), timeout=timeout)
    try:
        head = ["%s %s HTTP/1.1" % (method, target), "Host: %s:%d" % (host, port), "Connection: close"]
        for name, value in (headers or {}).items():
            head.append("%s: %s" % (name, value))
        if cookies:
            head.append("Cookie: " + "; ".join("%s=%s" % kv for kv in cookies.items()))
        data = body or b""
        if body is not None:
            head.append("Content-Length: %d" % len(data))
        conn.sendall(("\r\n".join(head) + "\r\n\r\n").encode() + data)
        raw = read_to_end(conn)
    finally:
        conn.close()
    head, _, payload = raw.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split()[1]) if lines and len(lines[0].split()) > 1 else 0
    fields = [(l.split(":", 1)[0].strip().lower(), l.split(":", 1)[1].strip()) for l in lines[1:] if ":" in l]
    if cookies is not None:
        for name, value in fields:
            if name == "set-cookie":
                pair = value.split(";", 1)[0]
                if "=" in pair:
                    k, v = pair.split("=", 1)
                    cookies[k.strip()] = v.strip()
    return status, dict(fields), payload


class FormParser(html.parser.HTMLParser):
    def __init__(self):
        super().__init__()
        self.action, self.fields = None, {}

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form" and self.action is None:
            self.action = a.get("action")
        if tag == "input" and a.get("name"):
            self.fields[a["name"]] = a.get("value") or ""


def normal_login(ready):
    """SP-initiated Web SSO with the IdP's HTTP Basic: the protected page at the end."""
    user = ready["users"][0]
    cookies = {}
    url = ready["sp"]["secure"]
    basic = "Basic " + base64.b64encode(("%s:%s" % (user["username"], user["password"])).encode()).decode()
    for _ in range(10):
        host = split(url)[:2]
        headers = {"Authorization": basic} if host == split(ready["idp"]["base"])[:2] else {}
        status, fields, body = http("GET", url, headers=headers, cookies=cookies)
        if status in (301, 302, 303, 307):
            url = urllib.parse.urljoin(url, fields["location"])
            continue
        if status == 200 and b"SAMLResponse" in body:
            form = FormParser()
            form.feed(body.decode("utf-8", "replace"))
            target = urllib.parse.urljoin(url, form.action)
            data = urllib.parse.urlencode(form.fields).encode()
            status, fields, body = http("POST", target, headers={"Content-Type": "application/x-www-form-urlencoded"},
                                        body=data, cookies=cookies)
            if status in (302, 303):
                url = urllib.parse.urljoin(target, fields["location"])
                continue
        return status == 200 and b"SAMLResponse" not in body
    return False


def probe(ready):
    """One normal login and one request per listener; returns (ok, slowest seconds, notes)."""
    notes, slowest, ok = [], 0.0, True
    started = time.monotonic()
    try:
        logged_in = normal_login(ready)
    except OSError as error:
        logged_in = False
        notes.append("login: %s" % error)
    took = time.monotonic() - started
    slowest = max(slowest, took)
    if not logged_in or took > PROMPT:
        ok = False
        notes.append("login %s in %.2f s" % ("ok" if logged_in else "failed", took))
    for name, url in listeners_of(ready).items():
        if not url:
            continue
        started = time.monotonic()
        try:
            status = http("GET", url)[0]
        except OSError as error:
            status = str(error)
        took = time.monotonic() - started
        slowest = max(slowest, took)
        if not isinstance(status, int) or status == 0 or took > PROMPT:
            ok = False
            notes.append("%s: %s in %.2f s" % (name, status, took))
    return ok, slowest, notes



async def open_idle(host, port, target, count):
    """`count` keep-alive connections, each answered once, then held open."""
    held = []
    for _ in range(count):
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(("GET %s HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (target, host, port)).encode())
        await writer.drain()
        held.append((reader, writer))
    answered = 0
    for reader, _ in held:
        try:
            line = await asyncio.wait_for(reader.readline(), timeout=PROMPT)
            answered += line.startswith(b"HTTP/1.1 ")
        except asyncio.TimeoutError:
            pass
    return held, answered


async def slow_client(host, port, target, stop, body):
    try:
        reader, writer = await asyncio.open_connection(host, port)
    except OSError:
        return
    if body:
        text = "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n" % (target, host, port)
        writer.write(text.encode())
        trickle = b"a" * 100000
    else:
        trickle = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\nX-Slow: " % (target, host, port)).encode() + b"a" * 100000
    index = 0
    try:
        while not stop.is_set():
            writer.write(trickle[index:index + 1])
            index += 1
            await writer.drain()
            try:
                await asyncio.wait_for(stop.wait(), timeout=1)
            except asyncio.TimeoutError:
                pass
    except (ConnectionError, OSError):
        pass
    finally:
        writer.close()


async def case_idle_and_slow(serve):
    listeners = {k: v for k, v in serve.listeners().items() if v and k not in ("console", "proxy")}
    loop = asyncio.get_running_loop()
    # 1. idle keep-alive connections
    per = 2000 // len(listeners)
    held, answered = [], 0
    for name, url in listeners.items():
        host, port, target = split(url)
        h, a = await open_idle(host, port, target, per)
        held += h
        answered += a
    total = per * len(listeners)
    ok, slowest, notes = await loop.run_in_executor(None, probe, serve.ready)
    record("idle: %d keep-alive connections answered once and held open" % total, answered == total,
           "%d answered" % total, "%d answered" % answered)
    record("idle: a normal login and every listener while %d connections idle" % total, ok and serve.alive(),
           "within %.0f s, serve alive" % PROMPT, "slowest %.3f s%s" % (slowest, "; " + "; ".join(notes) if notes else ""),
           {"slowest_s": round(slowest, 3), "idle_connections": total})
    for _, writer in held:
        writer.close()
    # 2. slowloris: heads and bodies a byte a second
    stop = asyncio.Event()
    tasks = []
    names = list(listeners)
    for i in range(600):
        host, port, target = split(listeners[names[i % len(names)]])
        tasks.append(asyncio.create_task(slow_client(host, port, target, stop, body=i >= 500)))
    await asyncio.sleep(2)  # let the slow clients connect and start trickling (pacing, not readiness)
    ok, slowest, notes = await loop.run_in_executor(None, probe, serve.ready)
    record("slowloris: a normal login and every listener while 500 slow heads and 100 slow bodies trickle",
           ok and serve.alive(), "within %.0f s, serve alive" % PROMPT,
           "slowest %.3f s%s" % (slowest, "; " + "; ".join(notes) if notes else ""),
           {"slowest_s": round(slowest, 3), "slow_clients": 600})
    stop.set()
    await asyncio.gather(*tasks, return_exceptions=True)


def raw_exchange(host, port, data, shut_write=False, reset=False, timeout=PROMPT):
    s = socket.create_connection((host, port), timeout=timeout)
    try:
        s.sendall(data)
        if reset:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return b""
        if shut_write:
            s.shutdown(socket.SHUT_WR)
        return read_to_end(s)
    finally:
        s.close()


def case_per_listener(serve):
    for name, url in serve.listeners().items():
        if not url or name == "proxy":
            continue
        host, port, target = split(url)
        request = ("GET %s HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (target, host, port)).encode()
        # half-close
        try:
            raw = raw_exchange(host, port, request, shut_write=True)
            head, _, body = raw.partition(b"\r\n\r\n")
            length = [l for l in head.split(b"\r\n") if l.lower().startswith(b"content-length:")]
            whole = bool(length) and len(body) == int(length[0].split(b":")[1])
            got = "%s, %s" % (raw.split(b"\r\n", 1)[0].decode("latin-1"), "whole body" if whole else "body %d bytes" % len(body))
            ok = raw.startswith(b"HTTP/1.1 ") and whole
        except OSError as error:
            ok, got = False, str(error)
        record("%s: half-closed after its request" % name, ok, "the whole answer", got)
        # reset mid-request
        try:
            raw_exchange(host, port, request[: len(request) // 2], reset=True)
            status = http("GET", url)[0]
            ok, got = status != 0 and serve.alive(), "next request %s" % status
        except OSError as error:
            ok, got = False, str(error)
        record("%s: reset mid-request" % name, ok, "the listener serves the next request", got)
        # never reads: 2,000 pipelined requests, the answers never read
        started = time.monotonic()
        try:
            s = socket.create_connection((host, port), timeout=PROMPT)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.settimeout(0.5)
            sent = 0
            try:
                for _ in range(2000):
                    s.sendall(request)
                    sent += 1
            except (socket.timeout, OSError):
                pass
            s.close()
            ok, slowest, notes = probe(serve.ready)
            got = "%d requests written; meanwhile slowest %.3f s%s" % (
                sent, slowest, "; " + "; ".join(notes) if notes else "")
            ok = ok and serve.alive()
        except OSError as error:
            ok, got = False, str(error)
        record("%s: a client that pipelines 2,000 requests and never reads the answers" % name, ok,
               "the others served within %.0f s" % PROMPT,
               got, {"seconds": round(time.monotonic() - started, 3)})


REFUSED_BODY = 20 * 1024 * 1024
REFUSED_WITHIN = 1.0


def refused_body(host, port, target, proxy_target=None):
    """POST a 20 MB body written whole before reading (as python's http.client does); returns
    (status line, seconds until it arrived, seconds until the connection closed or None, bytes
    sent, error)."""
    s = socket.create_connection((host, port), timeout=PROMPT)
    request_target = proxy_target or target
    head = ("POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n"
            % (request_target, host, port, REFUSED_BODY)).encode()
    started = time.monotonic()
    sent, error, raw, answered, closed = 0, None, b"", None, None
    try:
        s.sendall(head)
        chunk = b"a" * 65536
        while sent < REFUSED_BODY:
            sent += s.send(chunk[: min(len(chunk), REFUSED_BODY - sent)])
        s.settimeout(2.0)
        while True:
            data = s.recv(65536)
            if data and answered is None:
                answered = time.monotonic() - started
            if not data:
                closed = time.monotonic() - started
                break
            raw += data
            if b"\r\n\r\n" in raw and b"connection: close" not in raw.split(b"\r\n\r\n")[0].lower():
                break  # kept alive after reading the whole body: the answer is what counts
    except socket.timeout:
        pass
    except OSError as caught:
        error = str(caught)
    finally:
        s.close()
    return raw.split(b"\r\n", 1)[0].decode("latin-1"), answered, closed, sent, error


def case_refused_body(serve):
    """Issue 37: a 20 MB body written before reading gets its 413 within a second, at every
    listener (the mocks refuse bodies over 8 MiB, the control API and the console over 64 KiB)."""
    r = serve.ready
    targets = {"idp": r["idp"]["sso_post"], "sp": r["sp"]["acs"], "auth": r["auth"]["basic"],
               "cas": r["cas"]["login"], "adfs": r["adfs"]["usernamemixed_13"], "cm": r["cm"]["acs"],
               "proxy": r["proxy"]["url"] + "/", "control": r["control"]["knobs"]}
    if r.get("console"):
        targets["console"] = r["console"].replace("/?token=", "/api/knobs?token=")
    for name, url in targets.items():
        host, port, target = split(url)
        status, answered, closed, sent, error = refused_body(host, port, target)
        ok = status.startswith("HTTP/1.1 413") and answered is not None and answered <= REFUSED_WITHIN and sent == REFUSED_BODY
        record("%s: a 20 MB body written before reading" % name, ok,
               "413 within %.0f s, the whole body taken" % REFUSED_WITHIN,
               "%s after %s s, %d bytes sent, %s%s" % (
                   status or "no answer", "%.3f" % answered if answered is not None else "-", sent,
                   "closed after %.3f s" % closed if closed is not None else "kept open",
                   ", " + error if error else ""),
               {"answer_s": round(answered, 3) if answered is not None else None,
                "closed_s": round(closed, 3) if closed is not None else None})


def case_record_refused_body(binary, mockidp, serve_ready):
    """The same through `samlharness record`: the body forwarded to the allowed mock, whose
    413 comes back through the proxy."""
    work = tempfile.mkdtemp(prefix="robustness-record-")
    acs = serve_ready["sp"]["acs"]
    host, port, _ = split(acs)
    process = subprocess.Popen([binary, "record", "--listen", "127.0.0.1:0", "--allow-host", "%s:%d" % (host, port),
                                "--out", os.path.join(work, "robustness-record.yaml"),
                                "--ca-dir", os.path.join(work, "ca"), "--har", os.path.join(work, "r.har")],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL)
    try:
        line = process.stdout.readline()
        if not line:
            record("record: a 20 MB body written before reading", False, "a ready line", process.stderr.read().decode()[-500:])
            return
        proxy = json.loads(line)["proxy"]
        phost, pport, _ = split(proxy)
        status, answered, closed, sent, error = refused_body(phost, pport, None, proxy_target=acs)
        ok = status.startswith("HTTP/1.1 413") and answered is not None and answered <= REFUSED_WITHIN and sent == REFUSED_BODY
        record("record: a 20 MB body written before reading (forwarded to the SP mock)", ok,
               "413 within %.0f s" % REFUSED_WITHIN,
               "%s after %s s, %d bytes sent%s" % (status or "no answer", "%.3f" % answered if answered is not None else "-",
                                                 sent, ", " + error if error else ""),
               {"answer_s": round(answered, 3) if answered is not None else None})
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
        shutil.rmtree(work, ignore_errors=True)


async def case_fd_exhaustion(binary, mockidp):
    serve = Serve(binary, ["--profile", "shibboleth-basic", "--no-console", "--mockidp-dir", mockidp],
                  prefix=["prlimit", "--nofile=256:256"])
    try:
        host, port, target = split(serve.ready["idp"]["metadata"])
        held = []
        refused = 0
        for _ in range(400):
            try:
                reader, writer = await asyncio.wait_for(asyncio.open_connection(host, port), timeout=2)
                held.append(writer)
            except (OSError, asyncio.TimeoutError):
                refused += 1
        # Ask on the held connections: some get no answer (accepted by the kernel, never by serve).
        await asyncio.sleep(1)  # pacing: give serve's accept loop a turn at its limit
        alive_at_limit = serve.alive()
        for writer in held:
            writer.close()
        await asyncio.sleep(1)  # pacing: the closes reach serve
        loop = asyncio.get_running_loop()
        started = time.monotonic()
        recovered = False
        while time.monotonic() - started < 15 and not recovered:
            recovered = await loop.run_in_executor(None, lambda: normal_login(serve.ready))
        took = time.monotonic() - started
        record("fd limit: 400 connections against a serve limited to 256 descriptors", alive_at_limit,
               "serve alive", "%s; %d connected (beyond the limit they wait in the kernel's backlog), %d refused" % (
                   "alive" if alive_at_limit else "exited %s" % serve.process.poll(), len(held), refused),
               {"held": len(held), "refused": refused})
        record("fd limit: after the connections close, a normal login", recovered and serve.alive(),
               "succeeds", "%s after %.2f s" % ("succeeded" if recovered else "failed", took), {"recovery_s": round(took, 3)})
    finally:
        serve.stop()


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--binary", default=".build/debug/samlharness")
    parser.add_argument("--mockidp-dir", default="MockIdP")
    parser.add_argument("--json-out")
    arguments = parser.parse_args()
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < 4096:
        resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 8192), hard))
    started = time.monotonic()
    serve = Serve(arguments.binary, ["--profile", "shibboleth-basic", "--mockidp-dir", arguments.mockidp_dir])
    try:
        asyncio.run(case_idle_and_slow(serve))
        case_per_listener(serve)
        case_refused_body(serve)
        case_record_refused_body(arguments.binary, arguments.mockidp_dir, serve.ready)
        record("serve survived every case", serve.alive(), "alive", "alive" if serve.alive() else "exited %s" % serve.process.poll())
    finally:
        code = serve.stop()
        errors = serve.process.stderr.read().decode("utf-8", "replace")
    record("serve stopped cleanly on SIGTERM", code == 0, "exit 0", "exit %s%s" % (code, (": " + errors[-300:]) if code else ""))
    asyncio.run(case_fd_exhaustion(arguments.binary, arguments.mockidp_dir))
    failed = [r for r in results if not r["ok"]]
    print("robustness: %d cases, %d passed, %d failed (%.1f s)" % (len(results), len(results) - len(failed), len(failed),
                                                                   time.monotonic() - started))
    if arguments.json_out:
        with open(arguments.json_out, "w") as handle:
            json.dump(results, handle, indent=1)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
