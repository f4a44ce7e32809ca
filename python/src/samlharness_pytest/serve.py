"""`samlharness serve` for one test: start it, wait for its ready line, judge, stop."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

from ._core import SamlharnessError, ScenarioResult, find_binary, mockidp_args, quoted, scenario_file, tail
from ._env import ClientEnv


class ServeSession:
    """A running `samlharness serve`: the mocks on loopback ports, for one test.

    Made by the `samlharness_serve` fixture (or `ServeSession.start`). The URLs come from the
    ready line (`ready` holds all of it); `verdicts()` ends the session and returns the judged
    result; `stop()` ends it without judging. The process is always stopped and reaped by
    `stop()`, which the fixture calls at teardown whatever happened.
    """

    READY_TIMEOUT = 120.0   # seconds: a debug build on a loaded machine starts in well under 1 s
    STOP_TIMEOUT = 30.0     # seconds from SIGTERM to exit before SIGKILL

    def __init__(self, arguments: List[str], directory: Path, scenario: Optional[str]):
        self.arguments = arguments
        self.directory = directory
        self.scenario_file = scenario
        self.verdicts_path = directory / "verdicts.json"
        self.har_path = directory / "traffic.har"
        self._stderr_path = directory / "serve.stderr"
        self._stderr = open(self._stderr_path, "wb")
        self._result: Optional[ScenarioResult] = None
        self._stdout_rest: List[bytes] = []
        self.ready: Dict[str, Any] = {}
        self.env = ClientEnv()
        self.returncode: Optional[int] = None
        try:
            # In the test's working directory: serve finds the catalog from there as the test's
            # own relative paths expect (or beside itself, in its share/, $SAMLH_HOME).
            self.process = subprocess.Popen(arguments, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=self._stderr)
        except OSError as error:
            self._stderr.close()
            raise SamlharnessError(f"cannot start {arguments[0]}: {error}") from None

    # -- starting ---------------------------------------------------------------------------

    @classmethod
    def start(cls, *, scenario: Optional[str] = None, profile: Optional[str] = None,
              knobs: Sequence[str] = (), expect: Optional[str] = None, time_scale: Optional[float] = None,
              seed: Optional[int] = None, console: bool = False, har: bool = True,
              extra_args: Sequence[str] = (), binary: Optional[str] = None,
              directory: Optional[os.PathLike] = None) -> "ServeSession":
        """Starts serve on loopback with ephemeral ports and returns once its ready line is read.

        `scenario`: an id from the catalog or a scenario file (then `verdicts()` judges);
        `profile`: a MockIdP profile instead (nothing is judged); `knobs`: misconfiguration
        knobs, `NAME` or `NAME=VALUE` — on a scenario they need `expect` ("success" or
        "failure"), the outcome to judge, as serve itself requires.
        """
        if scenario and profile:
            raise SamlharnessError("give a scenario or a profile, not both: a scenario sets its profile")
        binary = binary or find_binary()
        directory = Path(directory or tempfile.mkdtemp(prefix="samlharness-serve-")).resolve()
        directory.mkdir(parents=True, exist_ok=True)
        arguments = [binary, "serve", "--host", "127.0.0.1", "--port", "0", *mockidp_args()]
        file = scenario_file(binary, scenario) if scenario else None
        if file:
            arguments += ["--scenario", file, "--verdicts-out", str(directory / "verdicts.json")]
        if profile:
            arguments += ["--profile", profile]
        for knob in knobs:
            arguments += ["--knob", knob]
        if expect:
            arguments += ["--expect", expect]
        if time_scale is not None:
            arguments += ["--time-scale", str(time_scale)]
        if seed is not None:
            arguments += ["--seed", str(seed)]
        if har:
            arguments += ["--har-out", str(directory / "traffic.har")]
        if not console:
            arguments += ["--no-console"]
        arguments += list(extra_args)
        session = cls(arguments, directory, file)
        try:
            session._wait_until_ready()
        except BaseException:
            session.stop()
            raise
        return session

    def _wait_until_ready(self) -> None:
        """Reads the ONE ready line: no sleeping, no polling of ports. A reader thread blocks on
        stdout; the line arrives when every mock accepts connections, EOF when serve exits."""
        box: Dict[str, bytes] = {}
        got = threading.Event()

        def read() -> None:
            assert self.process.stdout is not None
            try:
                box["line"] = self.process.stdout.readline()
            finally:
                got.set()
            # Anything serve prints later is kept (and the pipe never fills).
            for chunk in iter(lambda: self.process.stdout.read(65536), b""):
                self._stdout_rest.append(chunk)

        threading.Thread(target=read, name="samlharness-serve-stdout", daemon=True).start()
        if not got.wait(self.READY_TIMEOUT):
            raise SamlharnessError(f"samlharness serve printed no ready line within {self.READY_TIMEOUT:g} s\n"
                                   f"$ {quoted(self.arguments)}\n{tail(self.stderr)}")
        line = box.get("line", b"")
        if not line:
            code = self.process.wait()
            raise SamlharnessError(f"samlharness serve exited {code} before its ready line"
                                   + (" (a usage or configuration error)" if code == 2 else "")
                                   + f"\n$ {quoted(self.arguments)}\n{tail(self.stderr)}")
        try:
            self.ready = json.loads(line)
        except ValueError as error:
            raise SamlharnessError(f"samlharness serve's first line is not its JSON ready line ({error}): {line[:300]!r}")
        if self.ready.get("event") != "ready":
            raise SamlharnessError(f"samlharness serve's first line is not a ready event: {line[:300]!r}")
        self.env = ClientEnv.from_ready(self.ready)

    # -- what the test uses -----------------------------------------------------------------

    @property
    def start_url(self) -> str:
        """Where a client starts: the scenario's start URL, else the SP's protected page."""
        return self.env["SAMLH_START_URL"]

    @property
    def username(self) -> str:
        return self.env.get("SAMLH_USERNAME", "")

    @property
    def password(self) -> str:
        return self.env.get("SAMLH_PASSWORD", "")

    @property
    def second_factor_code(self) -> Optional[str]:
        return self.env.get("SAMLH_SECOND_FACTOR_CODE")

    @property
    def users(self) -> List[Dict[str, str]]:
        return list(self.ready.get("users") or [])

    def _url(self, section: str, key: str = "base") -> Optional[str]:
        return (self.ready.get(section) or {}).get(key)

    @property
    def sp_url(self) -> Optional[str]:
        """The SP's base URL (its /secure page is `start_url` without a scenario)."""
        return self._url("sp")

    @property
    def idp_url(self) -> Optional[str]:
        return self._url("idp")

    @property
    def control_url(self) -> Optional[str]:
        """The control API's base URL (knobs, clock, reset, traffic.har); loopback clients only."""
        return self._url("control")

    @property
    def console_url(self) -> Optional[str]:
        return self.ready.get("console")

    @property
    def scenario(self) -> Optional[Dict[str, Any]]:
        """The ready line's scenario section (start, credentials, parameters, expect, checks)."""
        return self.ready.get("scenario")

    def url(self, section: str, key: str = "base") -> str:
        """Any endpoint of the ready line: `url("idp", "sso_redirect")`, `url("cas", "tickets")`."""
        value = self._url(section, key)
        if value is None:
            raise KeyError(f"the ready line has no {section}.{key}")
        return value

    @property
    def stderr(self) -> str:
        """serve's stderr so far (its notices, the verdict lines after `verdicts()`)."""
        try:
            return self._stderr_path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            return ""

    @property
    def running(self) -> bool:
        return self.process.poll() is None

    # -- ending -----------------------------------------------------------------------------

    def verdicts(self) -> ScenarioResult:
        """Ends the session (SIGTERM: serve judges the traffic, writes the verdicts and the HAR,
        exits 0) and returns the judged scenario. Called again, returns the same result."""
        if self._result is not None:
            return self._result
        if not self.scenario_file:
            self.stop()
            raise SamlharnessError("nothing is judged without a scenario: start the session with scenario=… "
                                   "(serve --scenario), or use stop()")
        code = self.stop()
        if code != 0 or not self.verdicts_path.exists():
            raise SamlharnessError(f"samlharness serve exited {code} without writing its verdicts\n"
                                   f"$ {quoted(self.arguments)}\n{tail(self.stderr)}")
        self._result = ScenarioResult.from_json(json.loads(self.verdicts_path.read_text(encoding="utf-8")))
        return self._result

    def stop(self) -> Optional[int]:
        """Stops serve (SIGTERM, then SIGKILL after STOP_TIMEOUT s) and reaps it; its exit status."""
        if self.returncode is None:
            if self.process.poll() is None:
                try:
                    self.process.send_signal(signal.SIGTERM)
                    self.process.wait(timeout=self.STOP_TIMEOUT)
                except subprocess.TimeoutExpired:
                    self.process.kill()
                    self.process.wait()
                except ProcessLookupError:
                    self.process.wait()
            self.returncode = self.process.returncode
            if self.process.stdout:
                self.process.stdout.close()
            self._stderr.close()
        return self.returncode

    def __enter__(self) -> "ServeSession":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.stop()

    def __repr__(self) -> str:
        what = (self.scenario or {}).get("id") or self.ready.get("profile")
        return f"<ServeSession {what} {'running' if self.running else f'exited {self.returncode}'} at {self.sp_url}>"


