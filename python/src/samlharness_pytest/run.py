"""Judge a Python client function, in the test's process, with `samlharness run`."""
from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Union

from ._core import (SamlharnessError, ScenarioResult, catalog_paths, find_binary, mockidp_args, quoted,
                    read_results, tail)
from ._env import ClientEnv

ClientFunction = Callable[[ClientEnv], Mapping]
WRAPPER = Path(__file__).with_name("_wrapper.py")


@dataclass
class ClientCall:
    """One call of the client function: the scenario, what it returned or raised."""
    scenario: str
    result: Optional[Dict[str, Any]] = None
    exception: Optional[str] = None


@dataclass
class RunResult:
    """A `samlharness run` of the client function: exit status, every judged scenario, reports."""
    exit_code: int
    scenarios: List[ScenarioResult]
    report_dir: Path
    output: str
    stderr: str
    command: List[str]
    calls: List[ClientCall] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        """Every required check of every scenario passed (run's exit 0)."""
        return self.exit_code == 0

    @property
    def failed_checks(self) -> List[str]:
        """Every check that failed, in any scenario, once each."""
        seen: List[str] = []
        for scenario in self.scenarios:
            seen += [check for check in scenario.failed_checks if check not in seen]
        return seen

    @property
    def only(self) -> ScenarioResult:
        """The one scenario of a run of one scenario."""
        if len(self.scenarios) != 1:
            raise SamlharnessError(f"the run judged {len(self.scenarios)} scenarios, not one: "
                                   + ", ".join(s.scenario for s in self.scenarios))
        return self.scenarios[0]

    @property
    def status(self) -> str:
        return self.only.status

    def __getitem__(self, scenario: str) -> ScenarioResult:
        for result in self.scenarios:
            if result.scenario == scenario:
                return result
        raise KeyError(f"no result for {scenario}; judged: {', '.join(s.scenario for s in self.scenarios)}")

    def explain(self) -> str:
        lines = [f"samlharness run exited {self.exit_code}: {len(self.scenarios)} scenario(s), reports in {self.report_dir}"]
        lines += [result.explain() for result in self.scenarios if not result.passed]
        for call in self.calls:
            if call.exception:
                lines.append(f"the client function raised in {call.scenario}:\n{call.exception.rstrip()}")
        return "\n".join(lines)

    __str__ = explain


class _CallbackServer:
    """A Unix socket in a private directory; each connection is one scenario's wrapper, and
    each is answered by calling the function in a thread of this process."""

    def __init__(self, function: ClientFunction):
        self.function = function
        # Short path (AF_UNIX paths are limited to ~107 bytes), mode 0700.
        self.directory = tempfile.mkdtemp(prefix="samlh-")
        self.path = os.path.join(self.directory, "client.sock")
        self.listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.listener.bind(self.path)
        self.listener.listen(64)
        self.calls: List[ClientCall] = []
        self.lock = threading.Lock()
        self.closed = False
        self.acceptor = threading.Thread(target=self._accept, name="samlharness-client-callbacks", daemon=True)
        self.acceptor.start()

    def _accept(self) -> None:
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            if self.closed:
                connection.close()
                return
            threading.Thread(target=self._serve, args=(connection,), name="samlharness-client", daemon=True).start()

    def _serve(self, connection: socket.socket) -> None:
        with connection:
            data = b""
            while not data.endswith(b"\n"):
                chunk = connection.recv(65536)
                if not chunk:
                    break
                data += chunk
            env = ClientEnv(json.loads(data or b"{}"))
            call = ClientCall(scenario=env.get("SAMLH_SCENARIO", ""))
            with self.lock:
                self.calls.append(call)
            try:
                result = self.function(env)
                if not isinstance(result, Mapping):
                    raise TypeError(f"the client function returned {type(result).__name__}, not a result dict "
                                    "{'outcome': 'success'|'failure', 'resource': …, 'error': …}")
                result = dict(result)
                if result.get("outcome") not in ("success", "failure"):
                    raise ValueError(f"the client function's result has outcome {result.get('outcome')!r}, "
                                     "not 'success' or 'failure'")
                call.result = result
                answer = {"result": result}
            except BaseException:  # noqa: B036 — everything the function raises is its report
                call.exception = traceback.format_exc()
                answer = {"exception": call.exception}
            try:
                connection.sendall(json.dumps(answer, default=str).encode())
            except OSError:
                pass  # the runner stopped the wrapper (the scenario's timeout): its verdict says so

    def close(self) -> None:
        self.closed = True
        try:
            self.listener.close()
        finally:
            shutil.rmtree(self.directory, ignore_errors=True)


def run_client(function: ClientFunction, *, scenario: Optional[str] = None,
               filters: Union[str, Sequence[str]] = (), paths: Sequence[str] = (), jobs: int = 1,
               time_scale: Optional[float] = None, timeout: Optional[float] = None,
               report_dir: Optional[os.PathLike] = None, formats: str = "json,junit,md,html",
               binary: Optional[str] = None, extra_args: Sequence[str] = ()) -> RunResult:
    """Runs scenarios against `function`, in this process, and returns the judged result.

    `samlharness run` starts fresh mocks for each scenario and a tiny client command
    (`_wrapper.py`) that sends the scenario's `SAMLH_*` values back here; `function(env)` runs in
    a thread of this process (fixtures, mocks and breakpoints work) and returns
    `{"outcome": "success"|"failure", "resource": …, "error": …}`. What it returns is judged as
    any client's report is (docs/running-clients.md): the resource must hold what the mocks
    issued, a failure must name the scenario's error, and every byte it sent is checked. An
    exception it lets escape is what an uncaught exception in a client script is: `crashed`
    (its traceback in `calls` and `explain()`); catch errors and return a failure.

    Select with `scenario` (an id, or a scenario file), `filters` (as `samlharness list
    --filter`, each one a selection; their union is run) and `paths` (scenario files or
    folders; default the catalog). Exit 2 from run (a usage or configuration error) raises
    SamlharnessError; a failed check does not: look at `passed`, `failed_checks`, `explain()`.
    """
    binary = binary or find_binary()
    filters = [filters] if isinstance(filters, str) else list(filters)
    paths = list(paths)
    if scenario:
        if scenario.endswith((".yaml", ".yml")) or os.path.exists(scenario):
            paths.append(os.path.abspath(scenario))
        else:
            filters.append(scenario)
    if not filters and not paths:
        raise SamlharnessError("say what to run: scenario=…, filters=… or paths=… (the whole catalog is "
                               "hundreds of scenarios)")
    report_dir = Path(report_dir or tempfile.mkdtemp(prefix="samlharness-run-")).resolve()
    report_dir.mkdir(parents=True, exist_ok=True)
    server = _CallbackServer(function)
    client = quoted([sys.executable, "-I", str(WRAPPER), server.path])
    command = [binary, "run", "--client", client, "--report-dir", str(report_dir), "--format", formats,
               "--jobs", str(jobs), *mockidp_args()]
    for expression in filters:
        command += ["--filter", expression]
    if time_scale is not None:
        command += ["--time-scale", str(time_scale)]
    if timeout is not None:
        command += ["--timeout", str(timeout)]
    command += list(extra_args)
    command += paths or catalog_paths()
    try:
        done = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True,
                              errors="replace")
    finally:
        server.close()
    (report_dir / "run.stdout").write_text(done.stdout, encoding="utf-8")
    (report_dir / "run.stderr").write_text(done.stderr, encoding="utf-8")
    if done.returncode not in (0, 1):
        meaning = {2: "a usage or configuration error", 130: "stopped by SIGINT", 143: "stopped by SIGTERM"}
        raise SamlharnessError(f"samlharness run exited {done.returncode}"
                               + (f" ({meaning[done.returncode]})" if done.returncode in meaning else "")
                               + f"\n$ {quoted(command)}\n{tail(done.stderr or done.stdout)}")
    return RunResult(exit_code=done.returncode, scenarios=read_results(report_dir / "results.jsonl"),
                     report_dir=report_dir, output=done.stdout, stderr=done.stderr, command=command,
                     calls=list(server.calls))
