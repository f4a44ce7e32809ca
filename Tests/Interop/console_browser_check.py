#!/usr/bin/env python3
"""The live console seen by a real browser: `samlharness serve --scenario` with its console,
headless Chromium (Playwright, Debian's /usr/bin/chromium) on the console page from before the
first exchange, the reference client driven through the scenario, and what the page shows —
without ever reloading it.

    scripts/setup-browser-tests.sh            # once: chromium + .venv-browser (pinned Playwright)
    .venv-browser/bin/python Tests/Interop/console_browser_check.py \\
        --serve .build/debug/samlharness --client .build/debug/samlh-reference-client \\
        --scenario Scenarios/web-sso/web-sso.shibboleth-form-login.yaml --out /tmp/console-check

Steps (every wait has a deadline; none is a fixed sleep standing in for readiness):

1. `SERVE serve --scenario FILE --verdicts-out OUT/verdicts.json --har-out OUT/traffic.har
   --port 0 [--mockidp-dir DIR]` in the repository root (the console keeps its default
   ephemeral port). Its first stdout line, the JSON ready line, is awaited up to
   --ready-timeout; if serve exits or the deadline passes, the check fails with serve's stderr.
   The ready line must name the console (`console`) and the scenario (`scenario`).
2. Chromium opens the console URL and waits until `#status` reads `live` (the event stream is
   open) — before any client traffic. No `.exchange` row may exist yet.
3. The client runs as `samlharness run` would run it: a clean environment (PATH, HOME, LANG,
   LC_ALL, TMPDIR, USER, SSL_CERT_FILE, VIRTUAL_ENV from ours) plus SAMLH_SCENARIO, SAMLH_FLOW,
   SAMLH_START_URL, SAMLH_USERNAME, SAMLH_PASSWORD, SAMLH_SECOND_FACTOR_CODE and every
   `parameters` entry as SAMLH_<NAME>, all from the ready line's `scenario` section (the
   mapping of ScenarioRunner.environment(for:resultFile:)); SAMLH_RESULT_FILE =
   OUT/client-result.json; SAMLH_TIMEOUT = --client-timeout (30). Its own process group;
   stopped (SIGTERM, SIGKILL 2 s later) at the timeout, as the runner does.
4. On the same page — never reloaded: a marker set in its window after `live` must still be
   there at the end (main-frame navigations are counted too, for the record):
   a. at least --min-exchanges (4) `.exchange` rows;
   b. the SP's ACS POST: a row `.exchange[data-mock="sp"][data-method="POST"]`; then
      `#expand-all` is clicked, and a visible `.message[data-name="SAMLResponse"] pre.xml`
      belonging to such a row (inside it, inside an element with its data-seq, or in the
      `.details` after it) must contain `Response` and `Assertion` — the decoded XML, not
      base64;
   c. the verdicts: every check of the scenario has a `.verdict[data-check=ID]`, and either
      none is `pending` any more, or the anchor check (`flow.cookies-kept` when the scenario
      has it, else its first check) shows `pass` and no verdict has changed for --settle
      seconds. Why the second way: some checks can only be judged from the whole session (the
      expectation, `flow.resource-obtained` without a client report) and may rightly stay
      pending until serve stops; the anchor shows the live verdicts do arrive. The page is
      polled every 200 ms until one of the two holds, up to --verdict-timeout.
5. OUT/console-live.png (full page). Then SIGINT to serve; while it judges the session, writes
   verdicts.json and exits (up to --exit-timeout), the page is watched for `#verdicts-final`,
   and up to --final-grace seconds after serve exited (the last event may still be on its
   way). If it shows: OUT/console-final.png and the final verdicts as shown. Best effort: the
   final event may race the shutdown; `final_seen` records whether it came.
6. OUT/result.json (also printed):
   {"opened_before_traffic", "exchanges_shown", "exchange_count_text", "acs_exchange",
    "saml_response_decoded", "verdicts" (as shown live), "verdicts_settled" ("all", "anchor" or
    null), "final_seen", "verdicts_final" (as shown after #verdicts-final), "verdicts_file"
    (verdicts.json: check → status), "verdicts_file_status", "har_entries", "client_outcome",
    "navigations", "page_errors" (uncaught), "console_errors", "screenshots", "problems",
    "warnings", "ok"}.
   Beside it: verdicts.json, traffic.har, serve.stderr, client-result.json, client.stdout,
   client.stderr.

Exit status: 0 when the page showed the exchanges, the decoded SAMLResponse and the verdicts
(and serve wrote verdicts.json, and a final page, when seen, agrees with it); 1 when one of those
did not hold (each named in `problems` and on stderr); 2 when the check could not run (no
Playwright, serve or the browser did not start, the ready line lacks `console` or `scenario`).
Serve, the client and the browser are always stopped on the way out.
"""
import argparse
import json
import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
INHERITED = ["PATH", "HOME", "LANG", "LC_ALL", "TMPDIR", "USER", "SSL_CERT_FILE", "VIRTUAL_ENV"]
ANCHOR_CHECK = "flow.cookies-kept"
POLL_MS = 200


class SetupError(Exception):
    """The check could not run (exit 2)."""


def parse_arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--serve", required=True, help="the samlharness binary")
    parser.add_argument("--client", required=True, help="the client binary (samlh-reference-client)")
    parser.add_argument("--scenario", required=True, help="the scenario file to serve")
    parser.add_argument("--out", required=True, help="directory for screenshots, verdicts.json, result.json")
    parser.add_argument("--mockidp-dir", help="the MockIdP/ directory (serve --mockidp-dir)")
    parser.add_argument("--chromium", default=CHROMIUM, help="the browser executable (default %(default)s)")
    parser.add_argument("--client-timeout", type=float, default=30, help="SAMLH_TIMEOUT, seconds (default 30)")
    parser.add_argument("--ready-timeout", type=float, default=60, help="seconds to wait for serve's ready line")
    parser.add_argument("--page-timeout", type=float, default=20,
                        help="seconds for each wait on the page (live status, rows, decoded message)")
    parser.add_argument("--verdict-timeout", type=float, default=20, help="seconds to wait for the verdicts")
    parser.add_argument("--settle", type=float, default=2,
                        help="seconds without a verdict change that, with the anchor check passed, end the wait")
    parser.add_argument("--exit-timeout", type=float, default=30, help="seconds for serve to exit after SIGINT")
    parser.add_argument("--final-grace", type=float, default=2,
                        help="seconds to keep watching for #verdicts-final after serve exited")
    parser.add_argument("--min-exchanges", type=int, default=4)
    return parser.parse_args()


def tail(path, limit=4000):
    try:
        text = Path(path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ""
    return text[-limit:]


class Serve:
    """`samlharness serve` in its own session; stdout read by a thread, stderr to a file."""

    def __init__(self, argv, stderr_path):
        self.stderr_path = stderr_path
        self._stderr = open(stderr_path, "wb")
        try:
            self.process = subprocess.Popen(argv, cwd=REPO, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                            stderr=self._stderr, start_new_session=True)
        except OSError as error:
            self._stderr.close()
            raise SetupError("serve did not start: %s" % error)
        self.lines = queue.Queue()
        self.later = []
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        first = True
        for raw in self.process.stdout:
            line = raw.decode("utf-8", errors="replace").rstrip("\n")
            if first:
                self.lines.put(line)
                first = False
            else:
                self.later.append(line)
        if first:
            self.lines.put(None)   # EOF before any line

    def ready_line(self, timeout):
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise SetupError("serve printed no ready line within %g s; its stderr:\n%s"
                                 % (timeout, tail(self.stderr_path)))
            try:
                line = self.lines.get(timeout=min(left, 0.5))
            except queue.Empty:
                continue
            if line is None:
                try:
                    status = self.process.wait(timeout=5)
                except subprocess.TimeoutExpired:
                    status = "still running, stdout closed"
                raise SetupError("serve exited (status %s) before its ready line; its stderr:\n%s"
                                 % (status, tail(self.stderr_path)))
            try:
                ready = json.loads(line)
            except ValueError as error:
                raise SetupError("serve's first stdout line is not JSON (%s): %s" % (error, line[:500]))
            if not isinstance(ready, dict) or ready.get("event") != "ready":
                raise SetupError("serve's first stdout line is not a ready line: %s" % line[:500])
            return ready

    def running(self):
        return self.process.poll() is None

    def interrupt(self):
        if self.running():
            self.process.send_signal(signal.SIGINT)

    def stop(self):
        """Ends serve if it still runs (SIGTERM, SIGKILL 5 s later); returns its status."""
        if self.running():
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self._stderr.close()
        return self.process.returncode


def client_environment(target, result_file, timeout):
    """What ScenarioRunner.environment(for:resultFile:) gives a client, from the ready line's
    `scenario` section, over the runner's inherited variables."""
    environment = {name: os.environ[name] for name in INHERITED if name in os.environ}
    environment.update({
        "SAMLH_SCENARIO": str(target.get("id", "")),
        "SAMLH_FLOW": str(target.get("flow", "")),
        "SAMLH_START_URL": str(target.get("start", "")),
        "SAMLH_RESULT_FILE": str(result_file),
        "SAMLH_TIMEOUT": "%g" % timeout,
    })
    for name, key in (("SAMLH_USERNAME", "username"), ("SAMLH_PASSWORD", "password"),
                      ("SAMLH_SECOND_FACTOR_CODE", "second_factor_code")):
        if target.get(key) is not None:
            environment[name] = str(target[key])
    for key, value in (target.get("parameters") or {}).items():
        environment["SAMLH_" + key] = str(value)
    return environment


def run_client(binary, environment, timeout, out):
    """Runs the client in its own process group; stops the group at `timeout` like the runner."""
    result_file = Path(environment["SAMLH_RESULT_FILE"])
    timed_out = False
    with open(out / "client.stdout", "wb") as stdout, open(out / "client.stderr", "wb") as stderr:
        try:
            process = subprocess.Popen([binary], cwd=REPO, env=environment, stdin=subprocess.DEVNULL,
                                       stdout=stdout, stderr=stderr, start_new_session=True)
        except OSError as error:
            return {"exit_status": None, "timed_out": False, "outcome": None, "error": None,
                    "report_problem": "the client did not start: %s" % error}
        try:
            try:
                process.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                timed_out = True
                os.killpg(process.pid, signal.SIGTERM)
                try:
                    process.wait(timeout=2)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait(timeout=5)
        finally:
            if process.poll() is None:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait(timeout=5)
    outcome = {"exit_status": process.returncode, "timed_out": timed_out, "outcome": None, "error": None}
    try:
        report = json.loads(result_file.read_text(encoding="utf-8"))
        outcome["outcome"] = report.get("outcome")
        outcome["error"] = report.get("error") or None
    except (OSError, ValueError) as error:
        outcome["report_problem"] = "no readable result file: %s" % error
        outcome["stderr_tail"] = tail(out / "client.stderr", 1000)
    return outcome


# The page's hooks, read in the page.
JS_STATUS = "() => { const s = document.querySelector('#status'); return s ? s.textContent.trim() : null; }"
JS_LIVE = "() => { const s = document.querySelector('#status'); return !!s && s.textContent.trim().toLowerCase() === 'live'; }"
JS_EXCHANGES_AT_LEAST = "n => document.querySelectorAll('.exchange').length >= n"
JS_VERDICTS = """() => {
  const shown = {};
  for (const el of document.querySelectorAll('.verdict[data-check]')) shown[el.dataset.check] = el.dataset.status || '';
  return shown;
}"""
JS_TEXT = "sel => { const e = document.querySelector(sel); return e ? e.textContent.trim() : null; }"
JS_FINAL_VISIBLE = """() => {
  const e = document.querySelector('#verdicts-final');
  return !!e && !!(e.offsetWidth || e.offsetHeight || e.getClientRects().length)
    && getComputedStyle(e).visibility !== 'hidden';
}"""
# The decoded SAMLResponse of the SP's ACS POST. A message belongs to the row it is in, to the
# row whose data-seq an enclosing element carries, or to the row before its `.details`.
JS_SAML_RESPONSE = """() => {
  const ACS = '.exchange[data-mock="sp"][data-method="POST"]';
  const rowFor = (el) => {
    const own = el.closest('.exchange');
    if (own) return own;
    const holder = el.closest('[data-seq]');
    if (holder) return document.querySelector('.exchange[data-seq="' + CSS.escape(holder.dataset.seq) + '"]');
    const details = el.closest('.details');
    if (details) {
      let p = details.previousElementSibling;
      while (p && !p.matches('.exchange')) p = p.previousElementSibling;
      return p;
    }
    return null;
  };
  const visible = (el) => !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length)
    && getComputedStyle(el).visibility !== 'hidden';
  const found = [];
  for (const pre of document.querySelectorAll('.message[data-name="SAMLResponse"] pre.xml')) {
    const text = pre.textContent || '';
    const row = rowFor(pre);
    const root = text.match(/<([A-Za-z_][\\w.-]*:)?Response[\\s>]/);
    found.push({seq: row ? row.dataset.seq || null : null, mock: row ? row.dataset.mock || null : null,
                method: row ? row.dataset.method || null : null, acs: !!row && row.matches(ACS),
                visible: visible(pre), decoded: text.includes('Response') && text.includes('Assertion'),
                root: root ? root[0].slice(0, -1) : null, length: text.length});
  }
  const acsRows = [...document.querySelectorAll(ACS)].map(r => r.dataset.seq || null);
  const best = found.find(f => f.acs && f.visible && f.decoded) || null;
  return {best, found, acsRows};
}"""


def main():
    arguments = parse_arguments()
    out = Path(arguments.out).resolve()
    out.mkdir(parents=True, exist_ok=True)
    serve_binary = str(Path(arguments.serve).resolve())
    client_binary = str(Path(arguments.client).resolve())
    scenario_file = str(Path(arguments.scenario).resolve())
    for label, path in (("--serve", serve_binary), ("--client", client_binary)):
        if not os.access(path, os.X_OK):
            print("console_browser_check: %s %s is not an executable" % (label, path), file=sys.stderr)
            return 2
    if not os.path.isfile(scenario_file):
        print("console_browser_check: --scenario %s: no such file" % scenario_file, file=sys.stderr)
        return 2
    try:
        from playwright.sync_api import sync_playwright, Error as PlaywrightError, TimeoutError as PlaywrightTimeout
    except ImportError:
        print("console_browser_check: no Playwright here: run scripts/setup-browser-tests.sh and use "
              ".venv-browser/bin/python", file=sys.stderr)
        return 2
    if not os.access(arguments.chromium, os.X_OK):
        print("console_browser_check: no browser at %s: run scripts/setup-browser-tests.sh" % arguments.chromium,
              file=sys.stderr)
        return 2

    live_png, final_png = out / "console-live.png", out / "console-final.png"
    verdicts_path, har_path = out / "verdicts.json", out / "traffic.har"
    client_result = out / "client-result.json"
    for stale in (live_png, final_png, verdicts_path, har_path, client_result, out / "result.json"):
        stale.unlink(missing_ok=True)

    result = {
        "scenario": None, "console": None, "opened_before_traffic": False, "exchanges_shown": 0,
        "exchange_count_text": None, "acs_exchange": None, "saml_response_decoded": False,
        "saml_response": None, "verdicts": {}, "verdicts_settled": None, "final_seen": False,
        "verdicts_final": None, "verdicts_file": None, "verdicts_file_status": None, "har_entries": None,
        "client_outcome": None, "navigations": 0, "page_errors": [], "console_errors": [], "screenshots": [],
        "problems": [], "warnings": [], "ok": False,
    }
    problems, warnings = result["problems"], result["warnings"]
    page_timeout_ms = arguments.page_timeout * 1000

    serve_argv = [serve_binary, "serve", "--scenario", scenario_file, "--verdicts-out", str(verdicts_path),
                  "--har-out", str(har_path), "--port", "0"]
    if arguments.mockidp_dir:
        serve_argv += ["--mockidp-dir", str(Path(arguments.mockidp_dir).resolve())]

    serve = None
    playwright = browser = None
    status = 2
    # SIGTERM ends us through the `finally` below, like Ctrl-C does.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        serve = Serve(serve_argv, out / "serve.stderr")
        ready = serve.ready_line(arguments.ready_timeout)
        console = ready.get("console")
        target = ready.get("scenario")
        if not isinstance(console, str) or not console.startswith("http"):
            raise SetupError("the ready line has no `console` URL (a serve without the console, or --no-console?): "
                             "keys %s" % sorted(ready))
        if not isinstance(target, dict) or not target.get("start"):
            raise SetupError("the ready line has no `scenario` section with a start URL (a replay scenario?)")
        checks = [str(check) for check in target.get("checks") or []]
        if not checks:
            raise SetupError("the scenario %s names no checks" % target.get("id"))
        anchor = ANCHOR_CHECK if ANCHOR_CHECK in checks else checks[0]
        result["scenario"], result["console"] = target.get("id"), console

        # 2. The browser, on the console before any traffic.
        playwright = sync_playwright().start()
        try:
            browser = playwright.chromium.launch(
                executable_path=arguments.chromium, headless=True, timeout=30_000,
                args=["--no-sandbox"] if os.geteuid() == 0 else [])
        except PlaywrightError as error:
            raise SetupError("Chromium did not start: %s" % error)
        page = browser.new_context(viewport={"width": 1400, "height": 1000}).new_page()
        page.set_default_timeout(page_timeout_ms)

        def navigated(frame):
            if frame == page.main_frame:
                result["navigations"] += 1
        page.on("framenavigated", navigated)
        page.on("pageerror", lambda error: result["page_errors"].append(str(error)[:500]))
        page.on("console", lambda message: result["console_errors"].append(message.text[:500])
                if message.type == "error" else None)
        try:
            response = page.goto(console, wait_until="domcontentloaded", timeout=page_timeout_ms)
        except PlaywrightError as error:
            raise SetupError("the browser could not open the console %s: %s" % (console, error))
        if response is None or response.status != 200:
            raise SetupError("the console %s answered %s" % (console, response.status if response else "nothing"))
        try:
            page.wait_for_function(JS_LIVE, timeout=page_timeout_ms)
        except PlaywrightTimeout:
            raise SetupError("the console's #status did not read `live` within %g s (it reads %r): no event stream"
                             % (arguments.page_timeout, page.evaluate(JS_STATUS)))
        # A reload or another document loses this; checked after the last look at the page.
        page.evaluate("() => { window.__consoleCheckDocument = true; }")
        before = page.locator(".exchange").count()
        result["opened_before_traffic"] = before == 0
        if before:
            problems.append("%d exchange rows before the client started: the page was not opened before the traffic"
                            % before)
        status = 1

        # 3. The client, as `samlharness run` runs it.
        environment = client_environment(target, client_result, arguments.client_timeout)
        outcome = run_client(client_binary, environment, arguments.client_timeout, out)
        result["client_outcome"] = outcome
        expected = (target.get("expect") or {}).get("outcome")
        if expected and outcome.get("outcome") != expected:
            warnings.append("the client's outcome is %s, the scenario expects %s (error: %s)"
                            % (outcome.get("outcome"), expected, outcome.get("error")))

        # 4a. The exchanges, arriving on the open page.
        try:
            page.wait_for_function(JS_EXCHANGES_AT_LEAST, arg=arguments.min_exchanges, timeout=page_timeout_ms)
        except PlaywrightTimeout:
            pass
        result["exchanges_shown"] = page.locator(".exchange").count()
        result["exchange_count_text"] = page.evaluate(JS_TEXT, "#exchange-count")
        if result["exchanges_shown"] < arguments.min_exchanges:
            problems.append("the page shows %d exchange rows, expected at least %d, within %g s of the client's end"
                            % (result["exchanges_shown"], arguments.min_exchanges, arguments.page_timeout))

        # 4b. The SP's ACS POST and its decoded SAMLResponse.
        acs = '.exchange[data-mock="sp"][data-method="POST"]'
        try:
            page.wait_for_selector(acs, state="attached", timeout=page_timeout_ms)
            page.click("#expand-all", timeout=page_timeout_ms)
            found = page.wait_for_function(
                "() => { const r = (%s)(); return r.best ? r : null; }" % JS_SAML_RESPONSE,
                timeout=page_timeout_ms).json_value()
            result["saml_response_decoded"] = True
            result["acs_exchange"] = found["best"]["seq"]
            result["saml_response"] = found["best"]
        except PlaywrightTimeout as error:
            state = page.evaluate(JS_SAML_RESPONSE)
            result["saml_response"] = state
            if not state["acsRows"]:
                problems.append("no exchange row for the SP's ACS POST (%s) within %g s" % (acs, arguments.page_timeout))
            elif page.locator("#expand-all").count() == 0:
                problems.append("no #expand-all button")
            else:
                problems.append("no visible decoded SAMLResponse (Response and Assertion in "
                                ".message[data-name=SAMLResponse] pre.xml) for the ACS POST rows %s after #expand-all; "
                                "messages seen: %s (%s)" % (state["acsRows"], state["found"], str(error).splitlines()[0]))

        # 4c. The verdicts of the scenario's checks.
        deadline = time.monotonic() + arguments.verdict_timeout
        shown, last_change = None, time.monotonic()
        while True:
            now_shown = page.evaluate(JS_VERDICTS)
            if now_shown != shown:
                shown, last_change = now_shown, time.monotonic()
            missing = [check for check in checks if check not in shown]
            pending = [check for check in checks if shown.get(check) == "pending"]
            if not missing and not pending:
                result["verdicts_settled"] = "all"
                break
            if not missing and shown.get(anchor) == "pass" and time.monotonic() - last_change >= arguments.settle:
                result["verdicts_settled"] = "anchor"
                warnings.append("still pending on the live page: %s (judged when serve stops)" % ", ".join(pending))
                break
            if time.monotonic() >= deadline:
                problems.append("verdicts not shown within %g s: missing %s, pending %s, %s shows %r"
                                % (arguments.verdict_timeout, missing or "none", pending or "none", anchor,
                                   shown.get(anchor)))
                break
            page.wait_for_timeout(POLL_MS)
        result["verdicts"] = shown

        # The exchange list scrolls inside the page: bring the decoded SAMLResponse into the picture.
        if result["acs_exchange"] is not None:
            try:
                page.locator('.exchange[data-seq="%s"] .message[data-name="SAMLResponse"]'
                             % result["acs_exchange"]).first.scroll_into_view_if_needed(timeout=page_timeout_ms)
            except PlaywrightError as error:
                warnings.append("could not scroll the SAMLResponse into view: %s" % str(error).splitlines()[0])
        page.screenshot(path=str(live_png), full_page=True)
        result["screenshots"].append(str(live_png))

        # 5. Stop serve; watch for the final verdicts while it judges and exits.
        serve.interrupt()
        exit_deadline = time.monotonic() + arguments.exit_timeout
        grace_deadline = None
        while True:
            if not result["final_seen"] and page.evaluate(JS_FINAL_VISIBLE):
                result["final_seen"] = True
                page.screenshot(path=str(final_png), full_page=True)
                result["screenshots"].append(str(final_png))
                result["verdicts_final"] = page.evaluate(JS_VERDICTS)
            if serve.running():
                if time.monotonic() >= exit_deadline:
                    problems.append("serve did not exit within %g s of SIGINT" % arguments.exit_timeout)
                    break
            else:
                if result["final_seen"]:
                    break
                grace_deadline = grace_deadline or time.monotonic() + arguments.final_grace
                if time.monotonic() >= grace_deadline:
                    break
            page.wait_for_timeout(POLL_MS)
        if not result["final_seen"]:
            warnings.append("#verdicts-final did not show before the stream closed (the final event may race "
                            "serve's shutdown); #status reads %r" % page.evaluate(JS_STATUS))
        serve_status = serve.stop()
        if serve_status not in (0, None):
            problems.append("serve exited with status %s after SIGINT; its stderr:\n%s"
                            % (serve_status, tail(serve.stderr_path, 2000)))

        # 6. What serve wrote.
        try:
            judged = json.loads(verdicts_path.read_text(encoding="utf-8"))
            result["verdicts_file"] = {v["check"]: v["status"] for v in judged.get("verdicts", [])}
            result["verdicts_file_status"] = judged.get("status")
        except (OSError, ValueError, KeyError, TypeError) as error:
            problems.append("serve wrote no readable %s: %s" % (verdicts_path, error))
        try:
            result["har_entries"] = len(json.loads(har_path.read_text(encoding="utf-8"))["log"]["entries"])
        except (OSError, ValueError, KeyError, TypeError) as error:
            warnings.append("no readable %s: %s" % (har_path, error))
        if result["har_entries"] is not None and result["har_entries"] != result["exchanges_shown"]:
            warnings.append("the page showed %d exchange rows, the HAR has %d entries"
                            % (result["exchanges_shown"], result["har_entries"]))
        if result["verdicts_file"] is not None:
            if result["verdicts_final"] is not None:
                differ = {check: (result["verdicts_final"].get(check), status)
                          for check, status in result["verdicts_file"].items()
                          if result["verdicts_final"].get(check) != status}
                if differ:
                    problems.append("the final page and verdicts.json disagree (page, file): %s" % differ)
            live_differ = {check: (shown.get(check), status) for check, status in result["verdicts_file"].items()
                           if shown.get(check) not in (None, "pending", status)}
            if live_differ:
                warnings.append("live verdicts that changed when the session was judged (live, file): %s"
                                % live_differ)
        if not page.evaluate("() => window.__consoleCheckDocument === true"):
            problems.append("the console page was reloaded or replaced during the check (main-frame navigations: %d)"
                            % result["navigations"])
        if result["page_errors"]:
            warnings.append("the page threw %d uncaught errors (page_errors)" % len(result["page_errors"]))
        result["ok"] = not problems
        status = 0 if result["ok"] else 1
    except SetupError as error:
        problems.append(str(error))
        status = 2
    except PlaywrightError as error:
        problems.append("the browser failed: %s" % error)
        status = 2
    finally:
        if browser is not None:
            try:
                browser.close()
            except Exception:  # noqa: BLE001 — closing on the way out; nothing more to do
                pass
        if playwright is not None:
            try:
                playwright.stop()
            except Exception:  # noqa: BLE001
                pass
        if serve is not None:
            serve.stop()

    (out / "result.json").write_text(json.dumps(result, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(result, indent=2, ensure_ascii=False))
    for problem in problems:
        print("console_browser_check: FAILED: %s" % problem, file=sys.stderr)
    return status


if __name__ == "__main__":
    sys.exit(main())
