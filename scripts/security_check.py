#!/usr/bin/env python3
"""The security suite of issue 36 (docs/security.md): `samlharness serve` and `record` as
docs/devices.md runs them for a phone on Wi-Fi, attacked from a second host.

Run by scripts/security-check.sh (root, `ip netns`); Python 3 standard library only.

- Two network namespaces of the suite's own, joined by a veth pair: the server's
  (10.231.X.1, where serve, record, an unrelated local service on 127.0.0.1, a fake
  link-local metadata service on 169.254.169.254 and headless Chromium run) and the
  attacker's (10.231.X.2). No interface of the host is touched: traffic never leaves the two
  namespaces and their loopbacks.
- From the attacker: the control API and the console directly, every endpoint and path;
  the forward proxy with the right credentials to the control API, the console, the local
  service, link-local, other hosts, `user@` URLs and CONNECT; the proxy with the old fixed
  password; `record --listen 0.0.0.0:0` as an open proxy.
- From the server's loopback: the token, Host, Origin and content-type rules of the control
  API and the console, the console's masking; in Chromium a cross-site page (CSRF) and a
  rebound name (DNS rebinding).
- Positive controls: what must keep working does (the proxy forwards to the IdP, the token
  opens the control API and the console, a JSON change with the token changes the knobs).

One line per case: PASS/FAIL, the case, expected, got. Exit 1 on any FAIL.

    python3 scripts/security_check.py run --binary .build/debug/samlharness --repo .
"""
import argparse
import base64
import json
import os
import queue
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse

REQUEST_TIMEOUT = 5.0
OLD_PROXY_PASSWORD = "pr0xy+=&% :@pässwörd"
SCENARIO = "Scenarios/web-sso/web-sso.shibboleth-form-login.yaml"
PROXY_VIA = "samlharness-proxy"
# A public address (TEST-NET-3, RFC 5737) on the server's loopback: a destination `record` may reach.
PUBLIC_ADDRESS = "203.0.113.10"
# A name the server's namespace resolves to 127.0.0.1 (/etc/netns/NS/hosts): an allowed host
# that leads back into the machine.
REBOUND_NAME = "sneaky.example"


# ---------------------------------------------------------------------------------------------
# The agent: runs inside one namespace (`ip netns exec NS python3 security_check.py agent`),
# takes one raw HTTP request a line (JSON) on stdin, answers one JSON line on stdout.
# ---------------------------------------------------------------------------------------------

def agent_request(job):
    host, port = job["host"], job["port"]
    data = job["data"].encode("latin-1")
    timeout = job.get("timeout", REQUEST_TIMEOUT)
    linger = job.get("linger")  # a stream (SSE): read this long after the headers, then stop
    started = time.monotonic()
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except OSError as error:
        return {"error": "connect: " + (error.strerror or type(error).__name__)}
    buffer = b""
    try:
        sock.sendall(data)
        header_end = None
        stop_at = started + timeout
        while len(buffer) < 64 << 20:
            remaining = stop_at - time.monotonic()
            if remaining <= 0:
                break
            sock.settimeout(remaining)
            try:
                chunk = sock.recv(65536)
            except socket.timeout:
                break
            except OSError as error:
                if not buffer:
                    return {"error": "recv: " + (error.strerror or type(error).__name__)}
                break
            if not chunk:
                break
            buffer += chunk
            if header_end is None and b"\r\n\r\n" in buffer:
                header_end = buffer.index(b"\r\n\r\n")
                if linger is not None:
                    stop_at = min(stop_at, time.monotonic() + linger)
                if job.get("headers_only"):
                    break
    finally:
        sock.close()
    if not buffer:
        return {"error": "no answer (connection closed or timed out)"}
    head, _, body = buffer.partition(b"\r\n\r\n")
    lines = head.decode("latin-1").split("\r\n")
    parts = lines[0].split(" ", 2)
    try:
        status = int(parts[1])
    except (IndexError, ValueError):
        return {"error": "not HTTP: " + lines[0][:80]}
    headers = []
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers.append([name.strip(), value.strip()])
    return {"status": status, "headers": headers, "body": body.decode("latin-1")}


def agent_main():
    for line in sys.stdin:
        try:
            answer = agent_request(json.loads(line))
        except Exception as error:  # noqa: BLE001 — the driver must get an answer line
            answer = {"error": "agent: %r" % (error,)}
        sys.stdout.write(json.dumps(answer) + "\n")
        sys.stdout.flush()


# ---------------------------------------------------------------------------------------------
# The driver.
# ---------------------------------------------------------------------------------------------

class Answer:
    def __init__(self, raw):
        self.error = raw.get("error")
        self.status = raw.get("status")
        self.headers = raw.get("headers", [])
        self.body = raw.get("body", "")

    def header(self, name):
        for key, value in self.headers:
            if key.lower() == name.lower():
                return value
        return None

    def all_headers(self, name):
        return [value for key, value in self.headers if key.lower() == name.lower()]

    @property
    def relayed(self):
        """Whether the harness proxy relayed an origin's answer (its `Via`)."""
        return any(PROXY_VIA in value for value in self.all_headers("Via"))

    def text(self):
        """The answer in a few words, for the `got` column."""
        if self.error:
            return self.error
        words = str(self.status)
        if self.relayed:
            words += " relayed by the proxy (Via)"
        snippet = re.sub(r"\s+", " ", self.body[:90]).strip()
        if snippet:
            words += ": " + snippet
        return words


class Agent:
    def __init__(self, namespace, log):
        self.process = subprocess.Popen(
            ["ip", "netns", "exec", namespace, sys.executable, os.path.abspath(__file__), "agent"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, bufsize=1)
        self.lock = threading.Lock()

    def send(self, host, port, data, **options):
        job = dict(options, host=host, port=port, data=data.decode("latin-1") if isinstance(data, bytes) else data)
        with self.lock:
            self.process.stdin.write(json.dumps(job) + "\n")
            self.process.stdin.flush()
            ready, _, _ = select.select([self.process.stdout], [], [], options.get("timeout", REQUEST_TIMEOUT) + 5)
            if not ready:
                raise RuntimeError("the agent did not answer in time")
            line = self.process.stdout.readline()
        if not line:
            raise RuntimeError("the agent ended")
        return Answer(json.loads(line))

    def http(self, method, host, port, target, headers=None, body=b"", host_header=None, **options):
        """One request; `target` is origin-form (/path) or absolute-form (through a proxy)."""
        if isinstance(body, str):
            body = body.encode("utf-8")
        lines = ["%s %s HTTP/1.1" % (method, target)]
        fields = {"Host": host_header or "%s:%d" % (host, port), "Connection": "close", "User-Agent": "samlh-security-check"}
        fields.update(headers or {})
        if body or method in ("POST", "PUT", "DELETE"):
            fields["Content-Length"] = str(len(body))
        for name, value in fields.items():
            if value is not None:
                lines.append("%s: %s" % (name, value))
        data = ("\r\n".join(lines) + "\r\n\r\n").encode("utf-8") + body
        return self.send(host, port, data, **options)

    def close(self):
        try:
            self.process.stdin.close()
            self.process.wait(timeout=3)
        except Exception:  # noqa: BLE001
            self.process.kill()


def host_port(url):
    parts = urllib.parse.urlsplit(url)
    return parts.hostname, parts.port


def basic(user, password):
    return "Basic " + base64.b64encode(("%s:%s" % (user, password)).encode("utf-8")).decode("ascii")


def read_line(process, what, deadline):
    """The first stdout line of `process` (a ready line), waiting until `deadline` at most."""
    while True:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise RuntimeError("%s: no ready line in time" % what)
        ready, _, _ = select.select([process.stdout], [], [], remaining)
        if ready:
            line = process.stdout.readline()
            if not line:
                raise RuntimeError("%s ended before its ready line (exit %s)" % (what, process.wait()))
            return line


class Chromium:
    """Headless Chromium driven over the DevTools protocol on a pipe (--remote-debugging-pipe:
    fd 3 in, fd 4 out, NUL-terminated JSON), so no WebSocket client is needed."""

    def __init__(self, namespace, binary, profile, resolver_rules, log):
        to_chrome_r, to_chrome_w = os.pipe()
        from_chrome_r, from_chrome_w = os.pipe()
        # High fd numbers, so `3<&N 4>&M` in the child never clobbers one it still needs.
        child_in = fcntl_dup(to_chrome_r)
        child_out = fcntl_dup(from_chrome_w)
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        arguments = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--no-default-browser-check",
                     "--disable-extensions", "--disable-background-networking", "--disable-component-update",
                     "--disable-sync", "--metrics-recording-only", "--user-data-dir=" + profile,
                     "--remote-debugging-pipe", "--host-resolver-rules=" + resolver_rules, "about:blank"]
        shell = 'exec 3<&%d 4>&%d %d<&- %d>&-; exec "$@"' % (child_in, child_out, child_in, child_out)
        self.process = subprocess.Popen(["ip", "netns", "exec", namespace, "bash", "-c", shell, "chromium", binary] + arguments,
                                        pass_fds=(child_in, child_out), stdin=subprocess.DEVNULL,
                                        stdout=log, stderr=log, start_new_session=True)
        os.close(child_in)
        os.close(child_out)
        self.writer = os.fdopen(to_chrome_w, "wb", buffering=0)
        self.reader = os.fdopen(from_chrome_r, "rb", buffering=0)
        self.messages = queue.Queue()
        self.events = []
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()
        target = self.call("Target.createTarget", {"url": "about:blank"})["targetId"]
        self.session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True})["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Network.enable", session=True)
        self.call("Runtime.enable", session=True)

    def _read(self):
        pending = b""
        while True:
            try:
                chunk = self.reader.read(65536)
            except OSError:
                chunk = b""
            if not chunk:
                self.messages.put(None)
                return
            pending += chunk
            while b"\0" in pending:
                message, _, pending = pending.partition(b"\0")
                self.messages.put(json.loads(message))

    def call(self, method, params=None, session=False, timeout=15.0):
        self.next_id += 1
        message = {"id": self.next_id, "method": method, "params": params or {}}
        if session:
            message["sessionId"] = self.session
        self.writer.write(json.dumps(message).encode("utf-8") + b"\0")
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise RuntimeError("Chromium did not answer %s in time" % method)
            try:
                reply = self.messages.get(timeout=remaining)
            except queue.Empty:
                continue
            if reply is None:
                raise RuntimeError("Chromium ended (during %s)" % method)
            if reply.get("id") == self.next_id:
                if "error" in reply:
                    raise RuntimeError("%s: %s" % (method, reply["error"].get("message")))
                return reply.get("result", {})
            self.events.append(reply)

    def navigate(self, url, timeout=10.0):
        """Loads `url`; returns the main document's HTTP status (None when no answer)."""
        self.events.clear()
        frame = self.call("Page.navigate", {"url": url}, session=True).get("frameId")
        deadline = time.monotonic() + timeout
        status = None
        while time.monotonic() < deadline:
            for event in self.events:
                if event.get("method") == "Network.responseReceived" and event["params"].get("type") == "Document" \
                        and event["params"].get("frameId") == frame:
                    status = event["params"]["response"]["status"]
                if event.get("method") in ("Page.loadEventFired",):
                    return status
            self.events.clear()
            try:
                reply = self.messages.get(timeout=max(0.05, deadline - time.monotonic()))
            except queue.Empty:
                break
            if reply is None:
                raise RuntimeError("Chromium ended (loading %s)" % url)
            self.events.append(reply)
        return status

    def evaluate(self, expression, timeout=15.0):
        result = self.call("Runtime.evaluate", {"expression": expression, "awaitPromise": True, "returnByValue": True},
                           session=True, timeout=timeout)
        if "exceptionDetails" in result:
            return "exception: " + json.dumps(result["exceptionDetails"].get("exception", {}).get("description", ""))[:200]
        return result.get("result", {}).get("value")

    def close(self):
        try:
            self.call("Browser.close", timeout=3)
        except Exception:  # noqa: BLE001
            pass
        try:
            self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            os.killpg(self.process.pid, signal.SIGKILL)
            self.process.wait()


def fcntl_dup(fd):
    import fcntl
    return fcntl.fcntl(fd, fcntl.F_DUPFD, 50)


class Suite:
    def __init__(self, arguments):
        self.arguments = arguments
        self.results = []
        self.processes = []
        self.serve_processes = {}
        self.record_process = None
        self.agents = []
        self.tmp = tempfile.mkdtemp(prefix="samlh-security-")
        os.chmod(self.tmp, 0o755)  # http.server in the namespace is root too, but keep it simple
        self.log = open(os.path.join(self.tmp, "processes.log"), "w")
        self.server_ns = arguments.server_ns
        self.attacker_ns = arguments.attacker_ns
        subnet = arguments.subnet
        self.server_ip = subnet + ".1"
        self.attacker_ip = subnet + ".2"

    # -- reporting ---------------------------------------------------------------------------

    label = ""

    def case(self, name, expected, got, ok):
        self.results.append(ok)
        print("%s  %s%s — expected %s; got %s" % ("PASS" if ok else "FAIL", self.label, name, expected, got), flush=True)

    # -- set-up -------------------------------------------------------------------------------

    def ip(self, *arguments):
        subprocess.run(["ip"] + list(arguments), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=10)

    def namespaces(self):
        server, attacker = self.server_ns, self.attacker_ns
        veth_s, veth_a = self.arguments.veth + "s", self.arguments.veth + "a"
        self.ip("netns", "add", server)
        self.ip("netns", "add", attacker)
        self.ip("link", "add", veth_s, "netns", server, "type", "veth", "peer", "name", veth_a, "netns", attacker)
        for namespace, device, address in ((server, veth_s, self.server_ip), (attacker, veth_a, self.attacker_ip)):
            self.ip("-n", namespace, "link", "set", "lo", "up")
            self.ip("-n", namespace, "addr", "add", address + "/24", "dev", device)
            self.ip("-n", namespace, "link", "set", device, "up")
        # A stand-in for a cloud metadata service, and a public address, on the server's side.
        self.ip("-n", server, "addr", "add", "169.254.169.254/32", "dev", "lo")
        self.ip("-n", server, "addr", "add", PUBLIC_ADDRESS + "/32", "dev", "lo")
        # `ip netns exec` mounts /etc/netns/NS/hosts over /etc/hosts in the namespace.
        self.hosts_dir = os.path.join("/etc/netns", server)
        os.makedirs(self.hosts_dir, exist_ok=True)
        with open("/etc/hosts") as hosts, open(os.path.join(self.hosts_dir, "hosts"), "w") as ours:
            ours.write(hosts.read() + "\n127.0.0.1 %s\n" % REBOUND_NAME)

    def spawn(self, arguments, namespace, **options):
        process = subprocess.Popen(["ip", "netns", "exec", namespace] + arguments, start_new_session=True, **options)
        self.processes.append(process)
        return process

    def http_server(self, bind, port, directory, marker):
        """python3 -m http.server in the server's namespace; its request log is DIRECTORY.log."""
        os.makedirs(directory, exist_ok=True)
        with open(os.path.join(directory, "index.html"), "w") as page:
            page.write("<p>%s</p>\n" % marker)
        process = self.spawn([sys.executable, "-u", "-m", "http.server", str(port), "--bind", bind, "--directory", directory],
                             self.server_ns, stdout=subprocess.PIPE, stderr=open(directory + ".log", "w"), text=True)
        line = read_line(process, "python3 -m http.server on %s" % bind, time.monotonic() + 15)
        match = re.search(r"port (\d+)", line)
        if not match:
            raise RuntimeError("http.server said %r" % line)
        return int(match.group(1))

    def start_serve(self, options, name):
        """`serve OPTIONS --scenario …` in the server's namespace; its ready line."""
        command = ["env", "SAMLH_HOME=" + self.arguments.repo, self.arguments.binary, "serve"] + options \
            + ["--scenario", os.path.join(self.arguments.repo, SCENARIO)]
        self.serve_err = os.path.join(self.tmp, name + ".stderr")
        process = self.spawn(command, self.server_ns, stdout=subprocess.PIPE, stderr=open(self.serve_err, "w"), text=True)
        started = time.monotonic()
        line = read_line(process, "samlharness serve", started + 60)
        self.serve_processes[name] = process
        print("serve %s ready in %.1f s (%s)" % (" ".join(options) or "(loopback)", time.monotonic() - started,
                                                  self.arguments.binary), flush=True)
        return json.loads(line)

    def start_record(self, allowed):
        directory = os.path.join(self.tmp, "record")
        os.makedirs(directory)
        command = ["env", "SAMLH_HOME=" + self.arguments.repo, "XDG_DATA_HOME=" + directory, self.arguments.binary, "record",
                   "--listen", "0.0.0.0:0"]
        for host in allowed:
            command += ["--allow-host", host]
        command += ["--out", os.path.join(directory, "rec.yaml"), "--ca-dir", os.path.join(directory, "ca"),
                   "--har", os.path.join(directory, "rec.har")]
        process = self.spawn(command, self.server_ns, stdout=subprocess.PIPE,
                             stderr=open(os.path.join(self.tmp, "record.stderr"), "w"), text=True)
        line = read_line(process, "samlharness record", time.monotonic() + 60)
        self.record_process = process
        return json.loads(line)

    # -- the session's facts --------------------------------------------------------------------

    def facts(self):
        ready = self.ready
        self.ports = {}
        for listener in ("idp", "sp", "auth", "proxy", "control", "cas", "adfs", "cm"):
            section = ready.get(listener) or {}
            url = section.get("base") or section.get("url")
            if url:
                self.ports[listener] = host_port(url)[1]
        self.console_url = ready.get("console")
        self.ports["console"] = host_port(self.console_url)[1] if self.console_url else None
        control = ready.get("control") or {}
        self.token = control.get("token")
        proxy = ready.get("proxy") or {}
        self.proxy_user, self.proxy_password = proxy.get("username", ""), proxy.get("password", "")
        scenario = ready.get("scenario") or {}
        self.secrets = [s for s in (scenario.get("password"), scenario.get("second_factor_code")) if s]
        print("listeners: %s; control token %s; console %s" % (
            ", ".join("%s %s" % item for item in sorted(self.ports.items())),
            "in the ready line" if self.token else "ABSENT from the ready line", self.console_url), flush=True)

    def control(self, method, path, token=True, headers=None, body=b"", host_header=None):
        fields = {}
        if token and self.token:
            fields["Authorization"] = "Bearer " + self.token
        fields.update(headers or {})
        return self.server.http(method, "127.0.0.1", self.ports["control"], path, fields, body, host_header=host_header)

    def snapshot(self):
        answer = self.control("GET", "/state")
        try:
            state = json.loads(answer.body)
        except ValueError:
            return None
        return {"profile": state.get("profile"), "knobs": state.get("knobs"), "clockOffset": state.get("clockOffset"),
                "trafficEntries": state.get("trafficEntries", 0)}

    def unchanged(self, name, before):
        after = self.snapshot()
        if before is None or after is None:
            self.case(name + ": state unchanged", "GET /state (with the token) readable", "unreadable", False)
            return after
        same = all(before[key] == after[key] for key in ("profile", "knobs", "clockOffset")) \
            and after["trafficEntries"] >= before["trafficEntries"]
        described = "profile %s, knobs %s, clock %+g s, traffic %d entries" % (
            after["profile"], after["knobs"], after["clockOffset"] or 0, after["trafficEntries"])
        self.case(name + ": state unchanged", "profile %s, knobs %s, clock %+g s, traffic not reset" % (
            before["profile"], before["knobs"], before["clockOffset"] or 0), described, same)
        return after

    def restore(self):
        """Back to the scenario's own state (a FAIL before may have changed it), so a change is seen."""
        state = self.snapshot()
        if state is None:
            return
        json_type = {"Content-Type": "application/json"}
        if state["profile"] != self.initial["profile"]:
            self.control("PUT", "/profile", headers=json_type, body=json.dumps({"profile": self.initial["profile"]}))
        if state["knobs"] != self.initial["knobs"]:
            self.control("DELETE", "/knobs", headers=json_type)
        if state["clockOffset"]:
            self.control("POST", "/clock", headers=json_type, body=json.dumps({"advance": -state["clockOffset"]}))

    # -- the cases ------------------------------------------------------------------------------

    CONTROL_ENDPOINTS = [("GET", "/state", None), ("GET", "/", None), ("GET", "/traffic.har", None),
                         ("PUT", "/knobs", {"knobs": ["wrong-audience"]}), ("POST", "/knobs", {"knobs": ["wrong-audience"]}),
                         ("DELETE", "/knobs", None), ("PUT", "/profile", {"profile": "shibboleth-basic"}),
                         ("PUT", "/run", {"run": "attacker"}), ("POST", "/clock", {"advance": 86400}),
                         ("POST", "/reset", {})]
    CONSOLE_PATHS = [("GET", "/", None), ("GET", "/index.html", None), ("GET", "/events", None),
                     ("GET", "/traffic.har", None), ("GET", "/verdicts.json", None), ("GET", "/report.html", None),
                     ("GET", "/api/state", None), ("GET", "/api/traffic.har", None),
                     ("POST", "/api/knobs", {"knobs": ["wrong-audience"]}), ("DELETE", "/api/knobs", None),
                     ("PUT", "/api/profile", {"profile": "shibboleth-basic"}), ("POST", "/api/clock", {"advance": 86400}),
                     ("POST", "/api/reset", {})]

    @staticmethod
    def json_body(body):
        return json.dumps(body) if body is not None else ""

    def direct_attacks(self):
        self.restore()
        before = self.snapshot()
        for listener in ("control", "console"):
            answer = self.attacker.http("GET", self.server_ip, self.ports[listener], "/")
            refused = answer.error is not None and "refused" in answer.error.lower()
            self.case("LAN → %s port: bound to loopback only" % listener, "connection refused", answer.text(), refused)
        base = (self.ready.get("control") or {}).get("base", "")
        self.case("ready line control.base names 127.0.0.1", "http://127.0.0.1:PORT", base,
                  host_port(base)[0] == "127.0.0.1" if base else False)
        for method, path, body in self.CONTROL_ENDPOINTS:
            answer = self.attacker.http(method, self.server_ip, self.ports["control"], path,
                                        {"Content-Type": "application/json"}, self.json_body(body))
            ok = answer.error is not None or answer.status in (401, 403)
            self.case("LAN → control API %s %s" % (method, path), "no connection, 401 or 403", answer.text(), ok)
        for method, path, body in self.CONSOLE_PATHS:
            answer = self.attacker.http(method, self.server_ip, self.ports["console"], path,
                                        {"Content-Type": "application/json"}, self.json_body(body), linger=1.0)
            ok = answer.error is not None or answer.status in (401, 403)
            self.case("LAN → console %s %s" % (method, path), "no connection, 401 or 403", answer.text(), ok)
        self.unchanged("LAN → control API and console", before)

    def through_proxy(self, target, method="GET", user=None, password=None, headers=None, body=b"", host_header=None):
        fields = {}
        if user is not None:
            fields["Proxy-Authorization"] = basic(user, password)
        fields.update(headers or {})
        if host_header is None:
            parts = urllib.parse.urlsplit(target)
            host_header = parts.netloc.rpartition("@")[2] if "://" in target else None
        return self.attacker.http(method, self.server_ip, self.ports["proxy"], target, fields, body,
                                  host_header=host_header, linger=1.0)

    def proxy_attacks(self):
        self.restore()
        before = self.snapshot()
        control, console = self.ports["control"], self.ports["console"]
        local, ip = self.local_port, self.server_ip
        user, password = self.proxy_user, self.proxy_password
        json_type = {"Content-Type": "application/json"}
        token_header = {}
        targets = [
            ("control API GET /state", "GET", "http://127.0.0.1:%d/state" % control, {}, b""),
            ("control API POST /knobs", "POST", "http://127.0.0.1:%d/knobs" % control, json_type,
             b'{"knobs": ["wrong-audience"]}'),
            ("control API POST /clock", "POST", "http://127.0.0.1:%d/clock" % control, json_type, b'{"advance": 86400}'),
            ("control API GET /traffic.har", "GET", "http://127.0.0.1:%d/traffic.har" % control, {}, b""),
            ("control API by localhost", "GET", "http://localhost:%d/state" % control, {}, b""),
            ("control API by the public host", "GET", "http://%s:%d/state" % (ip, control), {}, b""),
            ("control API by [::1]", "GET", "http://[::1]:%d/state" % control, {}, b""),
            ("control API by 127.1", "GET", "http://127.1:%d/state" % control, {}, b""),
            ("control API by 0.0.0.0", "GET", "http://0.0.0.0:%d/state" % control, {}, b""),
            ("control API by 2130706433", "GET", "http://2130706433:%d/state" % control, {}, b""),
            ("control API by [::ffff:127.0.0.1]", "GET", "http://[::ffff:127.0.0.1]:%d/state" % control, {}, b""),
            ("console /", "GET", "http://127.0.0.1:%d/" % console, {}, b""),
            ("console /traffic.har", "GET", "http://127.0.0.1:%d/traffic.har" % console, {}, b""),
            ("console /events", "GET", "http://127.0.0.1:%d/events" % console, {}, b""),
            ("console POST /api/knobs", "POST", "http://127.0.0.1:%d/api/knobs" % console, json_type,
             b'{"knobs": ["wrong-audience"]}'),
            ("console by the public host", "GET", "http://%s:%d/" % (ip, console), {}, b""),
            ("unrelated local service 127.0.0.1:%d" % local, "GET", "http://127.0.0.1:%d/" % local, {}, b""),
            ("unrelated local service by localhost", "GET", "http://localhost:%d/" % local, {}, b""),
            ("link-local 169.254.169.254", "GET", "http://169.254.169.254/", {}, b""),
            ("another host (the attacker's own address)", "GET", "http://%s:9/" % self.attacker_ip, {}, b""),
            ("another host (example.com)", "GET", "http://example.com/", {}, b""),
            ("a public address (%s)" % PUBLIC_ADDRESS, "GET", "http://%s:%d/" % (PUBLIC_ADDRESS, self.public_port), {}, b""),
        ]
        for name, method, target, headers, body in targets:
            answer = self.through_proxy(target, method, user, password, dict(headers, **token_header), body)
            ok = answer.status == 403 and not answer.relayed
            self.case("LAN → proxy → %s" % name, "403 from the proxy (forbidden-upstream), nothing relayed",
                      answer.text(), ok)
        # Origin-form with only a Host field naming the target.
        answer = self.through_proxy("/state", "GET", user, password, host_header="127.0.0.1:%d" % control)
        self.case("LAN → proxy → control API named by Host only", "403 from the proxy, nothing relayed", answer.text(),
                  answer.status == 403 and not answer.relayed)
        for name, target in (("user@127.0.0.1 URL to the local service", "http://user@127.0.0.1:%d/" % local),
                             ("user@127.0.0.1 URL to the control API", "http://%s@127.0.0.1:%d/state" % (user or "u", control)),
                             ("user@ URL naming the IdP behind @", "http://127.0.0.1:%d@127.0.0.1:%d/" % (self.ports["idp"], local))):
            answer = self.through_proxy(target, "GET", user, password, host_header="127.0.0.1:%d" % local)
            ok = answer.status in (400, 403) and not answer.relayed
            self.case("LAN → proxy → %s" % name, "400 or 403 from the proxy, nothing relayed", answer.text(), ok)
        for name, authority in (("control API", "127.0.0.1:%d" % control), ("local service", "127.0.0.1:%d" % local),
                                ("IdP", "127.0.0.1:%d" % self.ports["idp"])):
            answer = self.through_proxy(authority, "CONNECT", user, password, host_header=authority)
            self.case("LAN → proxy CONNECT %s" % name, "501", answer.text(), answer.status == 501)
        idp_metadata = "http://127.0.0.1:%d/idp/shibboleth" % self.ports["idp"]
        for name, who, secret in (("no credentials", None, None), ("the old fixed password", "proxyuser", OLD_PROXY_PASSWORD),
                                  ("a wrong password", user or "proxyuser", "wrong")):
            answer = self.through_proxy(idp_metadata, "GET", who, secret)
            self.case("LAN → proxy with %s → IdP" % name, "407", answer.text(), answer.status == 407)
        for name, target in (("by 127.0.0.1", idp_metadata),
                             ("by the public host", "http://%s:%d/idp/shibboleth" % (ip, self.ports["idp"]))):
            answer = self.through_proxy(target, "GET", user, password)
            ok = answer.status == 200 and answer.relayed and "EntityDescriptor" in answer.body
            self.case("positive: LAN → proxy → IdP metadata %s" % name, "200 relayed, the metadata", answer.text(), ok)
        paths = {"sp": "/Shibboleth.sso/Metadata", "auth": "/basic/", "cas": "/cas/login", "adfs": "/adfs/services/trust/mex",
                 "cm": "/authentication_document"}
        for listener, path in sorted(paths.items()):
            if listener not in self.ports:
                continue
            answer = self.through_proxy("http://127.0.0.1:%d%s" % (self.ports[listener], path), "GET", user, password)
            self.case("positive: LAN → proxy → the %s mock" % listener, "relayed (Via), any status", answer.text()[:70],
                      answer.relayed)
        self.case("proxy password is not the old fixed one", "a per-session password",
                  "the fixed one" if password == OLD_PROXY_PASSWORD else "another (%d characters)" % len(password),
                  password != OLD_PROXY_PASSWORD and len(password) >= 12)
        self.unchanged("LAN → proxy", before)
        answer = self.control("GET", "/traffic.har")
        try:
            entries = json.loads(answer.body)["log"]["entries"]
        except (ValueError, KeyError, TypeError):
            entries = []
        forbidden = sum(1 for entry in entries
                        if (entry.get("_annotations") or {}).get("proxy.result") == "forbidden-upstream")
        self.case("the traffic log names the proxy's refusals", "proxy.result forbidden-upstream on >= %d exchanges" % len(targets),
                  "%d (of %d entries)" % (forbidden, len(entries)), forbidden >= len(targets))

    def cas_callback(self):
        """CAS `pgtUrl`: the mock CAS must not GET a loopback port that is none of its session's mocks."""
        cas = self.ports.get("cas")
        service = urllib.parse.quote((self.ready.get("cas") or {}).get("service", ""), safe="")
        log = os.path.join(self.tmp, "local.log")
        user = (self.ready.get("users") or [{}])[0]
        service_url = (self.ready.get("cas") or {}).get("service", "")

        def service_ticket():
            """A service ticket by the REST protocol, as any client on the network may get one (public test user)."""
            form = urllib.parse.urlencode({"username": user.get("username", ""), "password": user.get("password", "")})
            answer = self.attacker.http("POST", self.server_ip, cas, "/cas/v1/tickets",
                                        {"Content-Type": "application/x-www-form-urlencoded"}, form)
            location = answer.header("Location") or ""
            path = urllib.parse.urlsplit(location).path
            if not path:
                return None, "no TGT: " + answer.text()[:80]
            answer = self.attacker.http("POST", self.server_ip, cas, path, {"Content-Type": "application/x-www-form-urlencoded"},
                                        urllib.parse.urlencode({"service": service_url}))
            match = re.search(r"ST-[A-Za-z0-9._-]+", answer.body)
            return (match.group(0), None) if match else (None, "no ST: " + answer.text()[:80])

        for name, callback in (("the unrelated local service", "http://127.0.0.1:%d/pgt-probe-local" % self.local_port),
                               ("the control API", "http://127.0.0.1:%d/pgt-probe-control" % self.ports["control"]),
                               ("link-local", "http://169.254.169.254/pgt-probe-metadata"),
                               ("positive: a mock of the session (CAS's own /app/)",
                                "http://127.0.0.1:%d/app/pgt-probe-mock" % cas)):
            ticket, problem = service_ticket()
            if ticket is None:
                self.case("LAN → CAS REST: a service ticket for pgtUrl %s" % name, "a ticket", problem, False)
                continue
            target = "/cas/serviceValidate?service=%s&ticket=%s&pgtUrl=%s" % (
                service, ticket, urllib.parse.quote(callback, safe=""))
            answer = self.attacker.http("GET", self.server_ip, cas, target)
            probe = callback.rsplit("/", 1)[1]
            called = any(probe in open(path).read() for path in (log, os.path.join(self.tmp, "metadata.log")))
            # What the mock CAS says it did with the callback (`cas.proxy-callback`): refused
            # before any call, or called (and found unreachable, or delivered).
            note = "?"
            try:
                for entry in json.loads(self.control("GET", "/traffic.har").body)["log"]["entries"]:
                    if probe in entry["request"]["url"] and "serviceValidate" in entry["request"]["url"]:
                        note = (entry.get("_annotations") or {}).get("cas.proxy-callback", "none")
            except (ValueError, KeyError, TypeError):
                pass
            if name.startswith("positive"):
                self.case("%s: LAN → CAS serviceValidate with it as pgtUrl" % name, "called (cas.proxy-callback not refused)",
                          "cas.proxy-callback %s" % note, note not in ("refused", "?", "none"))
                continue
            self.case("LAN → CAS serviceValidate with pgtUrl %s" % name,
                      "INVALID_PROXY_CALLBACK, the callback refused without a call",
                      "%s, cas.proxy-callback %s%s" % (
                          "INVALID_PROXY_CALLBACK" if "INVALID_PROXY_CALLBACK" in answer.body else answer.text()[:80],
                          note, ", the service saw the call" if called else ""),
                      "INVALID_PROXY_CALLBACK" in answer.body and note == "refused" and not called)

    def loopback_checks(self):
        self.restore()
        control = self.ports["control"]
        # Positive controls and the token.
        answer = self.control("GET", "/state")
        self.case("positive: loopback → control API GET /state with the token", "200 with the state", answer.text()[:60],
                  answer.status == 200 and '"knobs"' in answer.body)
        self.case("control token in the ready line", "control.token present", "present" if self.token else "absent",
                  bool(self.token))
        for method, path, body in self.CONTROL_ENDPOINTS:
            answer = self.control(method, path, token=False, headers={"Content-Type": "application/json"},
                                  body=self.json_body(body))
            self.case("loopback → control API %s %s without the token" % (method, path), "401", answer.text(),
                      answer.status == 401)
        answer = self.control("GET", "/health", token=False)
        self.case("loopback → control API GET /health without the token", "200 {\"status\": \"ok\"} and nothing more",
                  answer.text()[:60], answer.status == 200 and json.loads(answer.body or "null") == {"status": "ok"})
        answer = self.server.http("GET", "127.0.0.1", control, "/state?token=" + "0" * 32)
        self.case("loopback → control API with a wrong ?token=", "401", answer.text(), answer.status == 401)
        answer = self.server.http("GET", "127.0.0.1", control, "/state?token=" + urllib.parse.quote(self.token or ""))
        self.case("positive: loopback → control API with ?token=", "200", answer.text()[:60], answer.status == 200)
        # Host, Origin, content type.
        for name, host in (("localhost", "localhost:%d" % control), ("the public host", "%s:%d" % (self.server_ip, control)),
                           ("the bound host", "0.0.0.0:%d" % control)):
            answer = self.control("GET", "/state", host_header=host)
            self.case("positive: loopback → control API Host: %s" % name, "200", answer.text()[:50], answer.status == 200)
        before = self.snapshot()
        answer = self.control("GET", "/state", host_header="evil.example")
        self.case("loopback → control API Host: evil.example", "403", answer.text(), answer.status == 403)
        answer = self.control("PUT", "/knobs", headers={"Content-Type": "application/json", "Origin": "https://evil.example"},
                              body='{"knobs": ["wrong-audience"]}', host_header="evil.example")
        self.case("loopback → control API PUT /knobs Host: evil.example", "403", answer.text(), answer.status == 403)
        before = self.unchanged("loopback → control API Host: evil.example", before)
        answer = self.control("PUT", "/knobs", headers={"Content-Type": "application/json", "Origin": "https://evil.example"},
                              body='{"knobs": ["wrong-audience"]}')
        self.case("loopback → control API PUT /knobs Origin: https://evil.example", "403", answer.text(), answer.status == 403)
        before = self.unchanged("loopback → control API foreign Origin", before)
        answer = self.control("POST", "/clock", headers={"Content-Type": "application/json", "Origin": "null"},
                              body='{"advance": 86400}')
        self.case("loopback → control API POST /clock Origin: null", "403", answer.text(), answer.status == 403)
        before = self.unchanged("loopback → control API Origin: null", before)
        for name, content_type in (("text/plain", "text/plain"), ("form", "application/x-www-form-urlencoded"),
                                   ("no Content-Type", None)):
            answer = self.control("POST", "/knobs", headers={"Content-Type": content_type},
                                  body='{"knobs": ["wrong-audience"]}')
            self.case("loopback → control API POST /knobs %s" % name, "415", answer.text(), answer.status == 415)
            before = self.unchanged("loopback → control API POST /knobs %s" % name, before)
        # Positive: a JSON change with the token does change the knobs (so "unchanged" means something).
        answer = self.control("PUT", "/knobs", headers={"Content-Type": "application/json"},
                              body='{"knobs": ["wrong-audience"]}')
        after = self.snapshot()
        changed = answer.status == 200 and after is not None and "wrong-audience" in (after["knobs"] or [])
        self.case("positive: loopback → control API PUT /knobs JSON with the token", "200, knobs hold wrong-audience",
                  "%s, knobs %s" % (answer.status, after and after["knobs"]), changed)
        answer = self.control("DELETE", "/knobs", headers={"Content-Type": "application/json"})
        after = self.snapshot()
        self.case("positive: loopback → control API DELETE /knobs", "200, knobs %s" % self.initial["knobs"],
                  "%s, knobs %s" % (answer.status, after and after["knobs"]),
                  answer.status == 200 and after is not None and after["knobs"] == self.initial["knobs"])

    def console_checks(self):
        port = self.ports["console"]
        url = self.console_url or ""
        parts = urllib.parse.urlsplit(url)
        token = urllib.parse.parse_qs(parts.query).get("token", [None])[0]
        self.case("console URL carries the token", "http://127.0.0.1:PORT/?token=TOKEN", url,
                  parts.hostname == "127.0.0.1" and bool(token))
        with open(self.serve_err) as stderr:
            said = stderr.read()
        self.case("console URL with the token on stderr", "the same URL on stderr",
                  "present" if url and url in said else "absent", bool(url) and url in said)
        for method, path, body in self.CONSOLE_PATHS:
            answer = self.server.http(method, "127.0.0.1", port, path, {"Content-Type": "application/json"},
                                      self.json_body(body), linger=1.0)
            self.case("loopback → console %s %s without token or cookie" % (method, path), "401", answer.text(),
                      answer.status == 401)
        answer = self.server.http("GET", "127.0.0.1", port, "/traffic.har?token=" + "0" * 32)
        self.case("loopback → console /traffic.har with a wrong token", "401", answer.text(), answer.status == 401)
        answer = self.server.http("GET", "127.0.0.1", port, "/?token=%s" % urllib.parse.quote(token or ""))
        cookie_line = answer.header("Set-Cookie") or ""
        self.case("positive: loopback → console /?token=TOKEN", "200, the page", answer.text()[:50],
                  answer.status == 200 and "<html" in answer.body.lower())
        framing = "Referrer-Policy %s, X-Frame-Options %s" % (answer.header("Referrer-Policy"), answer.header("X-Frame-Options"))
        self.case("console page: the token leaks to no other site, no framing", "Referrer-Policy no-referrer, X-Frame-Options DENY",
                  framing, framing == "Referrer-Policy no-referrer, X-Frame-Options DENY")
        attributes = [a.strip().lower() for a in cookie_line.split(";")]
        self.case("console cookie HttpOnly, SameSite=Strict", "Set-Cookie …; HttpOnly; SameSite=Strict", cookie_line or "none",
                  "httponly" in attributes and "samesite=strict" in attributes)
        cookie = cookie_line.split(";")[0] if "=" in cookie_line.split(";")[0] else None
        self.cookie = cookie
        with_cookie = {"Cookie": cookie} if cookie else {}
        # The scenario's secrets in the traffic, in a field no fixed pattern masks.
        secret_body = "note=%s&otp=%s" % tuple(urllib.parse.quote_plus(s) for s in (self.secrets + ["", ""])[:2])
        code = self.secrets[1] if len(self.secrets) > 1 else ""
        self.server.http("POST", self.server_ip, self.ports["idp"], "/idp/samlh-security-probe",
                         {"Content-Type": "application/x-www-form-urlencoded", "X-Probe": code}, secret_body)

        for path in ("/traffic.har", "/events", "/verdicts.json", "/report.html", "/api/state", "/api/traffic.har"):
            answer = self.server.http("GET", "127.0.0.1", port, path, with_cookie, linger=1.5)
            self.case("positive: loopback → console %s with the cookie" % path, "200", answer.text()[:60],
                      answer.status == 200)
            if path in ("/traffic.har", "/events", "/api/traffic.har"):
                body = answer.body
                if path == "/events":
                    # The first event (hello) carries the ready line, whose `scenario` section
                    # names the credentials the page shows a person to type: only the
                    # exchanges are judged here.
                    body = "\n\n".join(block for block in body.split("\n\n") if "event: hello" not in block)
                leaked = [kind for kind, form in self.secret_forms() if form in body]
                answer.body = body
                probe_seen = "samlh-security-probe" in answer.body
                self.case("console %s%s masks the scenario's password and one-time code" % (
                              path, " (its exchanges)" if path == "/events" else ""),
                          "the probe exchange present, no secret in any form",
                          "probe %s; leaked: %s" % ("present" if probe_seen else "absent", ", ".join(leaked) or "nothing"),
                          probe_seen and not leaked)
        # Host, Origin, content type on the console.
        self.restore()
        before = self.snapshot()
        answer = self.server.http("GET", "127.0.0.1", port, "/traffic.har", with_cookie, host_header="evil.example:%d" % port)
        self.case("loopback → console /traffic.har Host: evil.example", "403", answer.text(), answer.status == 403)
        answer = self.server.http("POST", "127.0.0.1", port, "/api/knobs",
                                  dict(with_cookie, **{"Content-Type": "application/json", "Origin": "https://evil.example"}),
                                  '{"knobs": ["wrong-audience"]}')
        self.case("loopback → console POST /api/knobs Origin: https://evil.example", "403", answer.text(), answer.status == 403)
        before = self.unchanged("loopback → console foreign Origin", before)
        answer = self.server.http("POST", "127.0.0.1", port, "/api/knobs", dict(with_cookie, **{"Content-Type": "text/plain"}),
                                  '{"knobs": ["wrong-audience"]}')
        self.case("loopback → console POST /api/knobs text/plain", "415", answer.text(), answer.status == 415)
        before = self.unchanged("loopback → console text/plain", before)
        own = "http://127.0.0.1:%d" % port
        answer = self.server.http("POST", "127.0.0.1", port, "/api/knobs",
                                  dict(with_cookie, **{"Content-Type": "application/json", "Origin": own}),
                                  '{"knobs": ["wrong-audience"]}')
        after = self.snapshot()
        self.case("positive: loopback → console POST /api/knobs from its own origin", "200, knobs hold wrong-audience",
                  "%s, knobs %s" % (answer.status, after and after["knobs"]),
                  answer.status == 200 and after is not None and "wrong-audience" in (after["knobs"] or []))
        self.server.http("DELETE", "127.0.0.1", port, "/api/knobs",
                         dict(with_cookie, **{"Content-Type": "application/json", "Origin": own}))

    def secret_forms(self):
        forms = []
        for kind, secret in zip(("password", "one-time code"), self.secrets):
            for form in {secret, urllib.parse.quote_plus(secret), urllib.parse.quote(secret, safe=""),
                         json.dumps(secret)[1:-1], json.dumps(secret, ensure_ascii=False)[1:-1]}:
                # The answers are read as Latin-1: a secret's UTF-8 bytes look so there.
                forms.append(("%s (%s)" % (kind, form[:12] + "…"), form.encode("utf-8").decode("latin-1")))
        return forms

    def record_attacks(self):
        local, ip, idp = self.local_port, self.server_ip, self.ports["idp"]
        public = "%s:%d" % (PUBLIC_ADDRESS, self.public_port)
        allowed = [public, "%s:%d" % (REBOUND_NAME, local), "%s:%d" % (ip, idp)]
        try:
            ready = self.start_record(allowed)
        except Exception as error:  # noqa: BLE001
            self.case("record --listen 0.0.0.0:0 starts", "a ready line", str(error), False)
            return
        port = host_port(ready["proxy"])[1]
        user = ready.get("proxy_user") or ready.get("username")
        password = ready.get("proxy_password") or ready.get("password")
        credentials = {"Proxy-Authorization": basic(user, password)} if user and password else {}
        self.case("record beyond loopback has a proxy password", "proxy_user and proxy_password in its ready line",
                  "user %s, a password of %d characters" % (user, len(password)) if credentials
                  else "none (keys: %s)" % ", ".join(sorted(ready)), bool(credentials) and len(password) >= 16)

        def send(method, target, host_header, headers=None):
            return self.attacker.http(method, self.server_ip, port, target, credentials if headers is None else headers,
                                      host_header=host_header, linger=1.0)

        def leaked(answer):
            return any(marker in answer.body for marker in ("local-service-", "metadata-service-", '"knobs"', "EntityDescriptor"))

        answer = send("GET", "http://%s/" % public, public)
        self.case("positive: LAN → record → an allowed host on a public address (%s)" % public, "200, its page",
                  answer.text()[:60], answer.status == 200 and "public-service" in answer.body)
        destinations = [
            ("an allowed name that resolves to 127.0.0.1 (%s)" % REBOUND_NAME, "http://%s:%d/" % (REBOUND_NAME, local),
             "%s:%d" % (REBOUND_NAME, local)),
            ("an allowed host on a private address (the server's 10.x)", "http://%s:%d/idp/shibboleth" % (ip, idp),
             "%s:%d" % (ip, idp)),
            ("127.0.0.1 (the local service)", "http://127.0.0.1:%d/" % local, "127.0.0.1:%d" % local),
            ("localhost (the local service)", "http://localhost:%d/" % local, "localhost:%d" % local),
            ("127.1 (the local service)", "http://127.1:%d/" % local, "127.1:%d" % local),
            ("the control API", "http://127.0.0.1:%d/state" % self.ports["control"], "127.0.0.1:%d" % self.ports["control"]),
            ("a user@127.0.0.1 URL", "http://user@127.0.0.1:%d/" % local, "127.0.0.1:%d" % local),
            ("an allowed host's URL with @127.0.0.1", "http://%s@127.0.0.1:%d/" % (public, local), "127.0.0.1:%d" % local),
            ("link-local 169.254.169.254", "http://169.254.169.254/", "169.254.169.254"),
            ("[::ffff:127.0.0.1]", "http://[::ffff:127.0.0.1]:%d/" % local, "[::ffff:127.0.0.1]:%d" % local),
            ("a host outside --allow-host (other.example)", "http://other.example/", "other.example"),
        ]
        for name, target, authority in destinations:
            answer = send("GET", target, authority)
            ok = answer.status is not None and 400 <= answer.status < 500 and not leaked(answer)
            self.case("LAN → record (with its password) GET %s" % name, "refused (4xx), nothing relayed", answer.text(), ok)
        for name, authority in (("127.0.0.1 (the local service)", "127.0.0.1:%d" % local),
                                ("169.254.169.254:80", "169.254.169.254:80"),
                                ("an allowed name that resolves to 127.0.0.1", "%s:%d" % (REBOUND_NAME, local)),
                                ("an allowed host on a private address", "%s:%d" % (ip, idp)),
                                ("a host outside --allow-host", "other.example:443")):
            answer = send("CONNECT", authority, authority)
            ok = answer.status is not None and answer.status >= 400
            self.case("LAN → record (with its password) CONNECT %s" % name, "refused (4xx/5xx), no tunnel", answer.text(), ok)
        answer = self.attacker.http("GET", self.server_ip, port, "/ca.crt", {}, linger=1.0)
        self.case("positive: LAN → record's own /ca.crt without credentials", "200 (a device fetches it before it is set up)",
                  "%s %s" % (answer.status, answer.header("Content-Type")) if answer.status else answer.text(), answer.status == 200)
        for name, headers in (("no credentials", {}), ("a wrong password", {"Proxy-Authorization": basic(user or "samlh", "wrong")})):
            answer = send("GET", "http://%s/" % public, public, headers)
            self.case("LAN → record with %s → an allowed host" % name, "407", answer.text(), answer.status == 407)

    def browser_cases(self):
        chromium = shutil.which("chromium") or "/usr/bin/chromium"
        if not os.path.exists(chromium):
            self.case("headless Chromium", "/usr/bin/chromium (scripts/setup-browser-tests.sh)", "absent", False)
            return
        control, console = self.ports["control"], self.ports["console"]
        console_token = urllib.parse.parse_qs(urllib.parse.urlsplit(self.console_url or "").query).get("token", [""])[0]
        control_base = "http://127.0.0.1:%d" % control
        console_base = "http://127.0.0.1:%d" % console
        evil = os.path.join(self.tmp, "evil")
        page_name = "csrf-%d.html" % control
        with open(os.path.join(evil, page_name), "w") as page:
            page.write(CSRF_PAGE.replace("CONTROL", control_base).replace("CONSOLE", console_base))
        browser = Chromium(self.server_ns, chromium, os.path.join(self.tmp, "chromium"),
                           "MAP rebind.test 127.0.0.1", self.log)
        try:
            # (a) CSRF, with the console open in the same browser (its cookie set).
            status = browser.navigate(self.console_url)
            self.case("positive: Chromium opens the console URL", "200", status, status == 200)
            for query, what, done in (
                    ("fetch", "no-cors text/plain fetches to control /knobs, /clock, /reset and console /api/knobs",
                     "sent,sent,sent,sent"),
                    ("forms", "auto-submitted text/plain forms to console /api/knobs, /api/reset, /api/clock",
                     "forms answered,answered,answered")):
                self.restore()
                before = self.snapshot()
                status = browser.navigate("http://127.0.0.1:%d/%s?%s" % (self.evil_port, page_name, query))
                sent = browser.evaluate("window.attack")
                self.case("Chromium CSRF: the page of 127.0.0.1:%d sent %s" % (self.evil_port, what), done,
                          "page %s, %s" % (status, sent), status == 200 and sent == done)
                self.unchanged("Chromium CSRF (%s)" % query, before)
            # (b) DNS rebinding: rebind.test resolves to 127.0.0.1.
            self.restore()
            before = self.snapshot()
            for name, url, allowed in (
                    ("control API /state", "http://rebind.test:%d/state" % control, (401, 403)),
                    ("control API /state?token=TOKEN", "http://rebind.test:%d/state?token=%s" % (control, self.token or ""), (403,)),
                    ("console /", "http://rebind.test:%d/" % console, (401, 403)),
                    ("console /?token=TOKEN", "http://rebind.test:%d/?token=%s" % (console, console_token), (403,))):
                status = browser.navigate(url)
                self.case("Chromium: rebinding, load %s" % name, " or ".join(map(str, allowed)), status, status in allowed)
                for path, method, body in (("/state" if "control" in name else "/api/state", "GET", None),
                                           ("/knobs" if "control" in name else "/api/knobs", "PUT",
                                            '{"knobs": ["wrong-audience"]}'),
                                           ("/traffic.har", "GET", None)):
                    options = "{method: %s%s}" % (json.dumps(method), "" if body is None else
                                                  ", headers: {'Content-Type': 'application/json'}, body: %s" % json.dumps(body))
                    got = browser.evaluate("fetch(%s, %s).then(r => r.status, e => 'error ' + e)" % (json.dumps(path), options))
                    self.case("Chromium: rebinding, page on %s fetches same-origin %s %s" % (name.split(" /")[0], method, path),
                              "401 or 403", got, got in (401, 403))
            self.unchanged("Chromium rebinding", before)
        finally:
            browser.close()

    def loopback_session(self):
        """The default `serve` (loopback, as for the iOS simulator): its control API asks no
        token, so only the Host, Origin and content-type checks keep a browser out."""
        saved = (self.ready, self.ports, self.token, self.console_url, self.secrets, self.initial, self.serve_err)
        self.ready = self.start_serve([], "serve-loopback")
        self.label = "[loopback session] "
        try:
            self.facts()
            self.initial = self.snapshot() or {"profile": None, "knobs": [], "clockOffset": 0}
            required = (self.ready.get("control") or {}).get("token_required")
            self.case("control.token_required on loopback", "false (no token on loopback)", required, required is False)
            answer = self.control("GET", "/state", token=False)
            self.case("positive: loopback → control API GET /state without the token", "200", answer.text()[:50],
                      answer.status == 200)
            before = self.snapshot()
            for name, headers, host in (
                    ("Host: evil.example", {"Content-Type": "application/json"}, "evil.example"),
                    ("Host: rebind.test:PORT", {"Content-Type": "application/json"}, "rebind.test:%d" % self.ports["control"]),
                    ("Origin: https://evil.example", {"Content-Type": "application/json", "Origin": "https://evil.example"}, None),
                    ("Origin: http://127.0.0.1:%d (another port)" % self.evil_port,
                     {"Content-Type": "application/json", "Origin": "http://127.0.0.1:%d" % self.evil_port}, None)):
                answer = self.control("PUT", "/knobs", token=False, headers=headers, body='{"knobs": ["wrong-audience"]}',
                                      host_header=host)
                self.case("loopback → control API PUT /knobs %s (no token)" % name, "403", answer.text(), answer.status == 403)
            for name, content_type in (("text/plain", "text/plain"), ("form", "application/x-www-form-urlencoded"),
                                       ("multipart", "multipart/form-data; boundary=x"), ("no Content-Type", None)):
                answer = self.control("POST", "/knobs", token=False, headers={"Content-Type": content_type},
                                      body='{"knobs": ["wrong-audience"]}')
                self.case("loopback → control API POST /knobs %s (no token)" % name, "415", answer.text(), answer.status == 415)
            self.unchanged("loopback → control API Host, Origin and content type (no token)", before)
            self.browser_cases()
        finally:
            self.label = ""
            self.ready, self.ports, self.token, self.console_url, self.secrets, self.initial, self.serve_err = saved

    def console_on_network(self):
        """`serve --console-host 0.0.0.0` (a colleague watching from another machine): the console
        is reachable from the network, and still nothing without the token."""
        ready = self.start_serve(["--host", "0.0.0.0", "--public-host", self.server_ip, "--console-host", "0.0.0.0"],
                                 "serve-console-host")
        console = ready.get("console") or ""
        port = host_port(console)[1]
        token = urllib.parse.parse_qs(urllib.parse.urlsplit(console).query).get("token", [""])[0]
        self.label = "[--console-host 0.0.0.0] "
        try:
            for method, path, body in self.CONSOLE_PATHS:
                answer = self.attacker.http(method, self.server_ip, port, path, {"Content-Type": "application/json"},
                                            self.json_body(body), linger=1.0)
                self.case("LAN → console %s %s without the token" % (method, path), "401", answer.text(), answer.status == 401)
            answer = self.attacker.http("GET", self.server_ip, port, "/traffic.har?token=" + "0" * 32)
            self.case("LAN → console /traffic.har with a wrong token", "401", answer.text(), answer.status == 401)
            answer = self.attacker.http("GET", self.server_ip, port, "/?token=" + token)
            self.case("positive: LAN → console with the token", "200", answer.text()[:40], answer.status == 200)
            answer = self.attacker.http("GET", self.server_ip, port, "/?token=" + token, host_header="evil.example:%d" % port)
            self.case("LAN → console with the token, Host: evil.example", "403", answer.text(), answer.status == 403)
        finally:
            self.label = ""

    def stop(self, process, what):
        """SIGTERM, as Ctrl-C would; True when it ended within 20 s."""
        if process is None or process.poll() is not None:
            return process is not None
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
            return True
        except subprocess.TimeoutExpired:
            self.case("%s stops on SIGTERM" % what, "within 20 s", "still running", False)
            return False

    def mode_case(self, name, path, mode):
        try:
            got = os.stat(path).st_mode & 0o777
        except OSError as error:
            self.case(name, "mode %o" % mode, "no file (%s)" % error.strerror, False)
            return
        self.case(name, "mode %o" % mode, "mode %o" % got, got == mode)

    def written_files(self):
        """What serve and record leave behind when stopped: the unmasked HARs and the recording
        CA's key private."""
        if self.stop(self.serve_processes.get("serve"), "serve"):
            self.mode_case("serve --har-out (the traffic unmasked) written", os.path.join(self.files, "run.har"), 0o600)
        if self.record_process is not None and self.stop(self.record_process, "record"):
            directory = os.path.join(self.tmp, "record")
            self.mode_case("record's HAR (unredacted) written", os.path.join(directory, "rec.har"), 0o600)
            self.mode_case("the recording CA's key", os.path.join(directory, "ca", "ca.key"), 0o600)
            self.mode_case("the recording CA's folder", os.path.join(directory, "ca"), 0o700)

    # -- main ---------------------------------------------------------------------------------

    def run(self):
        started = time.monotonic()
        self.namespaces()
        self.server = Agent(self.server_ns, self.log)
        self.attacker = Agent(self.attacker_ns, self.log)
        self.agents = [self.server, self.attacker]
        self.local_port = self.http_server("127.0.0.1", 0, os.path.join(self.tmp, "local"), "local-service-secret")
        self.http_server("169.254.169.254", 80, os.path.join(self.tmp, "metadata"), "metadata-service-secret")
        self.evil_port = self.http_server("127.0.0.1", 0, os.path.join(self.tmp, "evil"), "evil")
        self.public_port = self.http_server(PUBLIC_ADDRESS, 0, os.path.join(self.tmp, "public"), "public-service")
        self.files = os.path.join(self.tmp, "files")
        os.makedirs(self.files)
        self.ready = self.start_serve(["--host", "0.0.0.0", "--public-host", self.server_ip,
                                       "--har-out", os.path.join(self.files, "run.har")], "serve")
        self.facts()
        self.initial = self.snapshot() or {"profile": None, "knobs": [], "clockOffset": 0}
        answer = self.attacker.http("GET", self.server_ip, self.ports["idp"], "/idp/shibboleth")
        self.case("positive: LAN → IdP metadata directly", "200", answer.text()[:50], answer.status == 200)
        sections = [("direct", self.direct_attacks), ("proxy", self.proxy_attacks), ("cas", self.cas_callback),
                    ("loopback", self.loopback_checks),
                    ("console", self.console_checks), ("record", self.record_attacks), ("browser", self.browser_cases),
                    ("loopback-session", self.loopback_session), ("console-host", self.console_on_network),
                    ("files", self.written_files)]
        only = set(self.arguments.only.split(",")) if self.arguments.only else None
        unknown = sorted((only or set()) - {name for name, _ in sections})
        if unknown:
            raise RuntimeError("--only %s: no such section (%s)" % (",".join(unknown), ", ".join(name for name, _ in sections)))
        for name, section in sections:
            if only and name not in only:
                continue
            try:
                section()
            except Exception as error:  # noqa: BLE001 — a broken section is a FAIL, the rest still runs
                self.case("section %s" % name, "runs to the end", "%s: %s" % (type(error).__name__, error), False)
        failed = self.results.count(False)
        kept = failed or self.arguments.keep
        print("security-check: %d cases, %d passed, %d failed (%.1f s)%s" % (
            len(self.results), len(self.results) - failed, failed, time.monotonic() - started,
            "; logs in %s" % self.tmp if kept else ""), flush=True)
        return 1 if failed else 0

    def teardown(self):
        for agent in self.agents:
            agent.close()
        for process in reversed(self.processes):
            if process.poll() is None:
                try:
                    os.killpg(process.pid, signal.SIGTERM)
                except ProcessLookupError:
                    pass
        for process in self.processes:
            try:
                process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
        for namespace in (self.server_ns, self.attacker_ns):
            subprocess.run(["ip", "netns", "del", namespace], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if getattr(self, "hosts_dir", None):
            shutil.rmtree(self.hosts_dir, ignore_errors=True)
            try:
                os.rmdir("/etc/netns")  # only when empty: made for this run, or left empty by another
            except OSError:
                pass
        self.log.close()
        shutil.rmtree(os.path.join(self.tmp, "chromium"), ignore_errors=True)
        if not self.arguments.keep and not self.results.count(False):
            shutil.rmtree(self.tmp, ignore_errors=True)


CSRF_PAGE = """<!doctype html>
<title>evil</title>
<iframe name="f1"></iframe><iframe name="f2"></iframe><iframe name="f3"></iframe>
<form id="a" target="f1" method="POST" action="CONSOLE/api/knobs" enctype="text/plain">
  <input name='{"knobs": ["wrong-audience"], "pad": "' value='"}'></form>
<form id="b" target="f2" method="POST" action="CONSOLE/api/reset" enctype="text/plain">
  <input name='{"pad": "' value='"}'></form>
<form id="c" target="f3" method="POST" action="CONSOLE/api/clock" enctype="text/plain">
  <input name='{"advance": 86400, "pad": "' value='"}'></form>
<script>
// ?fetch: the fetches only; ?forms: the forms only.
window.attack = (async () => {
  const sent = [];
  if (location.search === "?fetch") {
  for (const [url, body] of [["CONTROL/knobs", {knobs: ["wrong-audience"]}], ["CONTROL/clock", {advance: 86400}],
                             ["CONSOLE/api/knobs", {knobs: ["wrong-audience"]}], ["CONTROL/reset", {}]]) {
    try {
      await fetch(url, {method: "POST", mode: "no-cors", credentials: "include",
                        headers: {"Content-Type": "text/plain"}, body: JSON.stringify(body)});
      sent.push("sent");
    } catch (e) { sent.push("error " + e); }
  }
  return sent.join(",");
  }
  const forms = [];
  for (const [form, frame] of [["a", "f1"], ["b", "f2"], ["c", "f3"]]) {
    forms.push(await new Promise(done => {
      const target = document.getElementsByName(frame)[0];
      // Loaded once the console's answer is in the frame: another origin, so reading its
      // address throws (the frame's first about:blank does not count).
      target.onload = () => {
        try { if (target.contentWindow.location.href === "about:blank") return; } catch (e) {}
        done("answered");
      };
      setTimeout(() => done("no answer"), 4000);
      document.getElementById(form).submit();
    }));
  }
  return "forms " + forms.join(",");
})();
</script>
"""


def main():
    if len(sys.argv) > 1 and sys.argv[1] == "agent":
        agent_main()
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("command", choices=["run"])
    parser.add_argument("--binary", required=True)
    parser.add_argument("--repo", required=True)
    parser.add_argument("--server-ns", default="samlh-sec-%d-srv" % os.getpid())
    parser.add_argument("--attacker-ns", default="samlh-sec-%d-atk" % os.getpid())
    parser.add_argument("--veth", default="shs%d" % (os.getpid() % 10_000_000))
    parser.add_argument("--subnet", default="10.231.%d" % (os.getpid() % 250 + 1))
    parser.add_argument("--only", help="comma-separated sections: direct, proxy, cas, loopback, console, record, browser, "
                        "loopback-session, console-host, files")
    parser.add_argument("--keep", action="store_true", help="keep the temporary folder (logs) even when every case passes")
    arguments = parser.parse_args()
    arguments.binary = os.path.abspath(arguments.binary)
    arguments.repo = os.path.abspath(arguments.repo)
    suite = Suite(arguments)

    def terminate(signum, _frame):
        raise SystemExit(128 + signum)

    signal.signal(signal.SIGTERM, terminate)
    signal.signal(signal.SIGINT, terminate)
    try:
        return suite.run()
    except SystemExit:
        print("security-check: interrupted after %d cases; torn down" % len(suite.results), flush=True)
        raise
    except Exception as error:  # noqa: BLE001
        print("FAIL  set-up — %s: %s" % (type(error).__name__, error), flush=True)
        return 1
    finally:
        suite.teardown()


if __name__ == "__main__":
    sys.exit(main())
