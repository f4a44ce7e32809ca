#!/usr/bin/env python3
"""The SP oracle: the harness's mock SP against a REAL Shibboleth SP 3, knob by knob.

For every mock-IdP knob value that changes the SAML Response (and every real Shibboleth/Apache
setting that changes how it is judged), a browser-like client logs in twice through the same
`samlharness serve` mock IdP: (a) through the mock SP (`<sp base>/secure`) and (b) through a real
Shibboleth SP 3 (Debian's apache2 + libapache2-mod-shib, started unprivileged on loopback by
scripts/setup-shibboleth-sp.sh). The two verdicts (accepted / refused, and for an acceptance
where the browser landed and who was logged in) are compared.

    python3 scripts/sp-oracle.py                 # every case → docs/sp-oracle-results.json
    python3 scripts/sp-oracle.py --only clock    # the cases whose id contains "clock"
    python3 scripts/sp-oracle.py --markdown      # also print a Markdown table on stdout
    python3 scripts/sp-oracle.py --check         # exit 1 when any case disagrees (listed)
    python3 scripts/sp-oracle.py --list          # the case ids, nothing run

How the two trust each other: the real SP must trust `serve`'s mock IdP, whose entityID and
endpoints carry its port, so `serve` runs on a fixed block of loopback ports (--port N: IdP on
N, mock SP on N+1…) and the real SP is given the IdP metadata `serve` publishes there
(/idp/shibboleth). One real SP runs per (profile, settings, IdP-metadata variant) — the
`expired-certificate` knob changes the certificate in the IdP's metadata, so the real SP gets
that metadata for that case, as a federation would publish it. Then for each case `serve` is
started with the knob and `--sp-metadata <real SP's /Shibboleth.sso/Metadata>` (so the IdP
answers the real SP and encrypts to its key); when the binary supports `--sp-personality`, it
also gets `--sp-personality shibboleth` and `--sp-setting NAME=VALUE` mirroring the real SP's.

Standard library only. Everything stays on 127.0.0.1; every HTTP request has a timeout; every
process started here is stopped on exit (also on Ctrl-C).
"""
import argparse
import html
import http.cookiejar
import json
import os
import re
import select
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
from html.parser import HTMLParser

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETUP = os.path.join(ROOT, "scripts", "setup-shibboleth-sp.sh")
DEFAULT_BINARY = os.path.join(ROOT, ".build", "debug", "samlharness")
DEFAULT_OUT = os.path.join(ROOT, "docs", "sp-oracle-results.json")
HTTP_TIMEOUT = 15          # seconds, every request
SERVE_READY_TIMEOUT = 30   # seconds until serve's ready line
SHA1 = "http://www.w3.org/2000/09/xmldsig#rsa-sha1 http://www.w3.org/2000/09/xmldsig#sha1"
EMAIL = "urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"

# ---------------------------------------------------------------------------------------------
# The cases: data. A case is a knob (None: the baseline) under a profile, with real SP settings
# (named as Shibboleth/Apache name them; the same names go to `serve --sp-setting`).
# ---------------------------------------------------------------------------------------------

RESPONSE_KNOBS = [  # (knob, profiles) — every knob value that changes the Response
    ("response-unsigned", ["shibboleth"]),
    ("assertion-unsigned", ["shibboleth-encrypted", "simplesamlphp"]),
    ("wrong-signing-key", ["shibboleth"]),
    ("expired-certificate", ["shibboleth"]),
    ("rsa-sha1", ["shibboleth"]),
    ("wrong-issuer", ["shibboleth"]),
    ("wrong-audience", ["shibboleth"]),
    ("wrong-destination", ["shibboleth"]),
    ("wrong-recipient", ["shibboleth"]),
    ("in-response-to=missing", ["shibboleth"]),
    ("in-response-to=wrong", ["shibboleth"]),
    ("expired", ["shibboleth"]),
    ("not-yet-valid", ["shibboleth"]),
    ("clock-skew=-120", ["shibboleth"]),
    ("clock-skew=120", ["shibboleth"]),
    # Shibboleth's MessageFlow rule compares whole seconds: refused when IssueInstant <
    # now - expires(60) - clockSkew(180), or > now + clockSkew. -240 and +181 sit on the boundary
    # (the verdict depends on whether a second ticks between issuing and checking), so the
    # deterministic neighbours are used: -239 accepted, -241 refused, +180 accepted, +182 refused.
    ("clock-skew=-239", ["shibboleth"]),
    ("clock-skew=-241", ["shibboleth"]),
    ("clock-skew=180", ["shibboleth"]),
    ("clock-skew=182", ["shibboleth"]),
    ("clock-skew=240", ["shibboleth"]),
    ("clock-skew=-300", ["shibboleth"]),
    ("clock-skew=300", ["shibboleth"]),
    ("clock-skew=-600", ["shibboleth"]),
    ("clock-skew=600", ["shibboleth"]),
    ("status=responder:Database unavailable", ["shibboleth"]),
    ("status=requester", ["shibboleth"]),
    ("status=authn-failed:Bad credentials", ["shibboleth"]),
    ("encrypt-wrong-key", ["shibboleth-encrypted"]),
    ("relaystate=drop", ["shibboleth"]),
    ("relaystate=alter", ["shibboleth"]),
    ("acs-other", ["shibboleth"]),
    ("base64-wrap=64", ["shibboleth"]),
    ("base64-wrap=76", ["shibboleth"]),
    ("attribute-missing=mail", ["shibboleth"]),
    ("nameid-format=" + EMAIL, ["shibboleth"]),
    ("second-assertion", ["shibboleth", "shibboleth-encrypted"]),
    ("nameid-comment", ["shibboleth"]),
    ("oversized=2097152", ["shibboleth"]),
]

SETTING_CASES = [  # (settings, profile, knobs) — a flipped real setting × the knobs it changes
    ({"ExcludedAlgorithms": SHA1}, "shibboleth", [None, "rsa-sha1"]),
    ({"checkCorrelation": "true"}, "shibboleth", [None, "in-response-to=missing", "in-response-to=wrong"]),
    ({"blockUnsolicited": "true"}, "shibboleth", [None, "in-response-to=missing", "in-response-to=wrong"]),
    ({"requireSignedAssertions": "true"}, "shibboleth-encrypted", [None, "assertion-unsigned", "second-assertion"]),
    ({"requireSignedAssertions": "true"}, "shibboleth", [None]),
    ({"LimitRequestBody": "1048576"}, "shibboleth", [None, "oversized=2097152"]),
    ({"clockSkew": "300"}, "shibboleth", ["clock-skew=-300", "clock-skew=300", "clock-skew=-600"]),
    ({"homeURL": "/home.html"}, "shibboleth", ["relaystate=drop", "relaystate=alter"]),
]

# Knobs that change the IdP's metadata: the real SP gets the metadata `serve` publishes with it.
METADATA_KNOBS = {"expired-certificate"}


def case_id(knob, profile, settings):
    parts = [profile, knob or "baseline"]
    parts += ["%s=%s" % (k, "sha1" if v == SHA1 else v) for k, v in sorted(settings.items())]
    return " ".join(parts)


def all_cases():
    cases, seen = [], set()

    def add(knob, profile, settings):
        cid = case_id(knob, profile, settings)
        if cid not in seen:
            seen.add(cid)
            cases.append({"id": cid, "knob": knob, "profile": profile, "settings": dict(settings)})

    profiles = []
    for _, ps in RESPONSE_KNOBS:
        profiles += [p for p in ps if p not in profiles]
    for p in profiles:
        add(None, p, {})
    for knob, ps in RESPONSE_KNOBS:
        for p in ps:
            add(knob, p, {})
    for settings, p, knobs in SETTING_CASES:
        for knob in knobs:
            add(knob, p, settings)
    return cases


# ---------------------------------------------------------------------------------------------
# Processes: everything started here is remembered and stopped on exit.
# ---------------------------------------------------------------------------------------------

class Processes:
    def __init__(self):
        self.serves = []      # Popen of `samlharness serve`
        self.sp_dirs = []     # real SP instance directories

    def stop_serve(self, proc):
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(timeout=5)
        if proc in self.serves:
            self.serves.remove(proc)

    def stop_sp(self, directory):
        subprocess.run(["bash", SETUP, "stop", directory], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       timeout=60, check=False)
        if directory in self.sp_dirs:
            self.sp_dirs.remove(directory)

    def cleanup(self):
        for proc in list(self.serves):
            self.stop_serve(proc)
        for directory in list(self.sp_dirs):
            self.stop_sp(directory)


PROCS = Processes()


def free_port_block(size=12):
    """A loopback port N with N…N+size-1 all free right now, below the kernel's ephemeral
    range (32768 and up): the block is used for the whole run, and a port in the ephemeral
    range can be taken meanwhile as the local port of any outgoing connection."""
    low, high = 20000, 32768
    try:
        with open("/proc/sys/net/ipv4/ip_local_port_range") as f:
            high = min(high, int(f.read().split()[0]))
    except (OSError, ValueError, IndexError):
        pass
    for _ in range(200):
        base = low + int.from_bytes(os.urandom(2), "big") % max(1, high - low - size)
        socks = []
        try:
            for p in range(base, base + size):
                s = socket.socket()
                s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                s.bind(("127.0.0.1", p))
                socks.append(s)
            return base
        except OSError:
            continue
        finally:
            for s in socks:
                s.close()
    raise RuntimeError("no free block of loopback ports")


def serve_supports(binary, flag):
    out = subprocess.run([binary, "serve", "--help"], capture_output=True, text=True, timeout=30)
    return flag in out.stdout + out.stderr


def start_serve(args, profile, knob, port, sp_metadata=None, settings=None, log_path=None):
    # A new seed every start: a seeded `serve` repeats its Response and Assertion IDs byte for
    # byte, and the real SP's replay cache (per instance) would refuse the repeats.
    args.serial = getattr(args, "serial", 0) + 1
    cmd = [args.binary, "serve", "--port", str(port), "--profile", profile, "--seed", str(args.seed * 100000 + args.serial),
           "--mockidp-dir", os.path.join(ROOT, "MockIdP")]
    if knob:
        cmd += ["--knob", knob]
    if sp_metadata:
        cmd += ["--sp-metadata", sp_metadata]
    if args.personality:
        cmd += ["--sp-personality", "shibboleth"]
        for name, value in sorted((settings or {}).items()):
            cmd += ["--sp-setting", "%s=%s" % (name, value)]
    # The block's ports were free when chosen; one may still be held for a moment (the last
    # serve's listener closing, a connection's local port): a serve that cannot bind (exit 1
    # at once) is started again on the same block, a few times, a second apart.
    for attempt in range(6):
        err = open(log_path, "ab") if log_path else subprocess.DEVNULL
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                                start_new_session=True, cwd=ROOT)
        if log_path:
            err.close()
        try:
            code = proc.wait(timeout=0.5)
        except subprocess.TimeoutExpired:
            break
        if code != 1 or attempt == 5:
            break
        time.sleep(1)
    PROCS.serves.append(proc)
    deadline = time.time() + SERVE_READY_TIMEOUT
    line = b""
    while time.time() < deadline:
        ready, _, _ = select.select([proc.stdout], [], [], 0.2)
        if ready:
            chunk = proc.stdout.readline()
            if not chunk:
                break
            line = chunk
            break
        if proc.poll() is not None:
            break
    if not line:
        code = proc.poll()
        PROCS.stop_serve(proc)
        raise RuntimeError("serve did not print its ready line (%s after %.1f s): %s (see %s)"
                           % ("exit %s" % code if code is not None else "still running", SERVE_READY_TIMEOUT - (deadline - time.time()),
                              " ".join(cmd), log_path))
    info = json.loads(line)
    info["_seed"] = args.seed * 100000 + args.serial
    return proc, info


def start_real_sp(args, directory, idp_metadata, settings):
    cmd = ["bash", SETUP, "start", directory, "--idp-metadata", idp_metadata]
    for name, value in sorted(settings.items()):
        cmd += ["--setting", "%s=%s" % (name, value)]
    PROCS.sp_dirs.append(directory)
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    if out.returncode != 0:
        raise RuntimeError("setup-shibboleth-sp.sh start failed:\n%s%s" % (out.stdout, out.stderr))
    env = {}
    for raw in out.stdout.splitlines():
        if "=" in raw:
            k, v = raw.split("=", 1)
            env[k] = v.strip("'")
    return env


# ---------------------------------------------------------------------------------------------
# The browser: cookies, redirects followed by hand (loopback only), forms.
# ---------------------------------------------------------------------------------------------

class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, req, fp, code, msg, headers, newurl):
        return None


class Page:
    def __init__(self, url, status, headers, body):
        self.url, self.status, self.headers, self.body = url, status, headers, body

    @property
    def text(self):
        return self.body.decode("utf-8", "replace")


class FormParser(HTMLParser):
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []
        self.current = None

    def handle_starttag(self, tag, attrs):
        a = {k: (v if v is not None else "") for k, v in attrs}
        if tag == "form":
            self.current = {"action": a.get("action", ""), "method": a.get("method", "get").lower(),
                            "inputs": [], "buttons": []}
            self.forms.append(self.current)
        elif self.current is not None and tag == "input":
            t = a.get("type", "text").lower()
            entry = {"name": a.get("name"), "type": t, "value": a.get("value", ""), "checked": "checked" in a}
            (self.current["buttons"] if t in ("submit", "image") else self.current["inputs"]).append(entry)
        elif self.current is not None and tag == "button":
            self.current["buttons"].append({"name": a.get("name"), "type": a.get("type", "submit"),
                                            "value": a.get("value", "")})
        elif self.current is not None and tag == "textarea":
            self.current["inputs"].append({"name": a.get("name"), "type": "textarea", "value": "", "checked": False})
            self._textarea = self.current["inputs"][-1]

    def handle_data(self, data):
        ta = getattr(self, "_textarea", None)
        if ta is not None:
            ta["value"] += data

    def handle_endtag(self, tag):
        if tag == "textarea":
            self._textarea = None
        if tag == "form":
            self.current = None


def parse_forms(text):
    p = FormParser()
    try:
        p.feed(text)
    except Exception:
        pass
    return p.forms


class Browser:
    def __init__(self):
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.ProxyHandler({}), NoRedirect(),
                                                  urllib.request.HTTPCookieProcessor(self.jar))
        self.trail = []

    def fetch(self, url, data=None, headers=None):
        host = urllib.parse.urlsplit(url).hostname
        if host not in ("127.0.0.1", "localhost"):
            raise RuntimeError("refusing to leave 127.0.0.1: %s" % url)
        req = urllib.request.Request(url, data=data, headers=dict(headers or {}))
        req.add_header("User-Agent", "samlharness-sp-oracle/1 (like a browser)")
        if data is not None:
            req.add_header("Content-Type", "application/x-www-form-urlencoded")
        try:
            with self.opener.open(req, timeout=HTTP_TIMEOUT) as r:
                page = Page(url, r.status, r.headers, r.read())
        except urllib.error.HTTPError as e:
            page = Page(url, e.code, e.headers, e.read() if e.fp else b"")
        self.trail.append("%s %s → %d" % ("POST" if data is not None else "GET", short(url), page.status))
        return page

    def navigate(self, url, data=None, max_hops=20):
        page = self.fetch(url, data)
        for _ in range(max_hops):
            if page.status in (301, 302, 303, 307, 308) and page.headers.get("Location"):
                nxt = urllib.parse.urljoin(page.url, page.headers["Location"])
                if urllib.parse.urlsplit(nxt).hostname not in ("127.0.0.1", "localhost"):
                    page.offsite = nxt
                    return page
                page = self.fetch(nxt)
            else:
                return page
        return page


def short(url):
    s = urllib.parse.urlsplit(url)
    q = ("?" + s.query[:40] + ("…" if len(s.query) > 40 else "")) if s.query else ""
    return "%s%s%s" % (s.port or "", s.path, q)


def submit(browser, page, form, fields):
    action = urllib.parse.urljoin(page.url, html.unescape(form["action"]) or page.url)
    body = urllib.parse.urlencode(fields, encoding="utf-8").encode()
    return action, browser.navigate(action, body)


def login(browser, start_url, user, password, sp_prefix):
    """Logs in from `start_url`. Returns (final page, ACS the auto-post form named, note)."""
    page = browser.navigate(start_url)
    acs = None
    for _ in range(8):
        forms = parse_forms(page.text) if page.status < 500 or b"<form" in page.body else []
        saml = next((f for f in forms if any(i["name"] in ("SAMLResponse",) for i in f["inputs"])), None)
        if saml:
            fields = [(i["name"], i["value"]) for i in saml["inputs"] if i["name"]]
            acs, page = submit(browser, page, saml, fields)
            return page, acs, None
        pw = next((f for f in forms if any(i["type"] == "password" for i in f["inputs"])), None)
        if pw:
            fields, user_done = [], False
            for i in pw["inputs"]:
                if not i["name"]:
                    continue
                if i["type"] == "password":
                    fields.append((i["name"], password))
                elif i["type"] in ("text", "email") and not user_done:
                    fields.append((i["name"], user))
                    user_done = True
                elif i["type"] in ("checkbox", "radio"):
                    if i["checked"]:
                        fields.append((i["name"], i["value"] or "on"))
                else:
                    fields.append((i["name"], i["value"]))
            named = [b for b in pw["buttons"] if b.get("name")]
            if named:
                fields.append((named[0]["name"], named[0]["value"]))
            _, page = submit(browser, page, pw, fields)
            continue
        consent = next((f for f in forms if any(re.search(r"proceed|accept", (b.get("name") or "") + (b.get("value") or ""), re.I)
                                                for b in f["buttons"])), None)
        if consent:
            fields = [(i["name"], i["value"]) for i in consent["inputs"]
                      if i["name"] and (i["type"] not in ("checkbox", "radio") or i["checked"])]
            btn = next(b for b in consent["buttons"] if re.search(r"proceed|accept", (b.get("name") or "") + (b.get("value") or ""), re.I))
            if btn.get("name"):
                fields.append((btn["name"], btn["value"]))
            _, page = submit(browser, page, consent, fields)
            continue
        break
    note = "no SAMLResponse form reached (ended at %s, HTTP %d)" % (short(page.url), page.status)
    return page, acs, note


# ---------------------------------------------------------------------------------------------
# Verdicts.
# ---------------------------------------------------------------------------------------------

def text_of(fragment):
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", fragment))).strip()


def real_error(page):
    """The error Shibboleth's sessionError.html (or Apache) shows."""
    t = page.text
    m = re.search(r'<p class="error">(.*?)</p>\s*<p>(.*?)</p>', t, re.S)
    if m:
        kind = re.sub(r"\s+at \(.*\)\s*$", "", text_of(m.group(1)))
        msg = "%s: %s" % (kind, text_of(m.group(2)))
        status = re.search(r"<blockquote>(.*?)</blockquote>", t, re.S)
        if status:
            msg += " [IdP said: %s]" % text_of(status.group(1))
        return msg
    title = re.search(r"<title>(.*?)</title>", t, re.S)
    body = re.search(r"<body>(.*?)</body>", t, re.S)
    return text_of((title.group(1) + ": " if title else "") + (body.group(1) if body else t))[:300]


def classify_landing(url, resource, home, sp_base):
    path = url.split("#")[0]
    if path.split("?")[0] == resource.split("?")[0]:
        return "resource"
    if home and path.rstrip("/") == home.rstrip("/"):
        return "home"
    if path.rstrip("/") == sp_base.rstrip("/"):
        return "home(/)"
    return "other:" + short(url)


def parse_real_session(page):
    """Shibboleth SP 3's /Shibboleth.sso/Session (HTML, showAttributeValues=true)."""
    t = page.text
    if "A valid session was not found" in t or page.status >= 400:
        return None
    attrs = {}
    m = re.search(r"<u>Attributes</u>(.*)", t, re.S) or re.search(r"Attributes</strong>(.*)", t, re.S)
    section = m.group(1) if m else t
    for name, value in re.findall(r"<strong>([^<]+)</strong>:\s*([^<\n]*)", section):
        attrs[html.unescape(name).strip()] = [html.unescape(v) for v in value.strip().split(";") if v]
    misc = {}
    for name, value in re.findall(r"<strong>([^<]+)</strong>:\s*([^<\n]*)", t.split("Attributes")[0]):
        misc[html.unescape(name).strip()] = html.unescape(value).strip()
    return {"attributes": attrs, "misc": misc}


def judge_real(env, page, acs, note, browser, log_before):
    v = {"acs": short(acs) if acs else None, "status": page.status, "final": short(page.url), "trail": browser.trail[-6:]}
    session = parse_real_session(browser.fetch(env["SESSION"]))
    if session is None:
        v["verdict"] = "refused" if acs else "no-response"
        v["error"] = note or real_error(page)
    else:
        v["verdict"] = "accepted"
        v["landed"] = classify_landing(page.url, env["WHOAMI"], env.get("HOME_URL"), env["BASE"])
        who = browser.fetch(env["WHOAMI"])
        m = re.search(r"REMOTE_USER=([^<]*)<", who.text)
        v["remote_user"] = html.unescape(m.group(1)).strip() if (who.status == 200 and m) else None
        attrs = session["attributes"]
        # the session's NameID, as the attribute map names it per format
        v["who"] = next((attrs[k][0] for k in ("nameid", "transient-id", "persistent-id") if attrs.get(k)), None)
        v["uid"] = attrs.get("uid")
        v["attributes"] = session["attributes"]
    v["log"] = shibd_log_since(env, log_before)
    return v


def judge_mock(sp, page, acs, note, browser):
    v = {"acs": short(acs) if acs else None, "status": page.status, "final": short(page.url), "trail": browser.trail[-6:]}
    sess = browser.fetch(sp["session"], headers={"Accept": "application/json"})
    data = None
    try:
        data = json.loads(sess.text)
    except ValueError:
        pass
    if not data or data.get("session", 1) is None:
        v["verdict"] = "refused" if acs else "no-response"
        m = re.search(r'<code id="reason">(.*?)</code>', page.text, re.S)
        v["reason"] = html.unescape(m.group(1)) if m else None
        e = re.search(r'<p id="explanation">(.*?)</p>', page.text, re.S)
        v["error"] = note or (html.unescape(e.group(1)) if e else text_of(page.text)[:300])
    else:
        v["verdict"] = "accepted"
        v["landed"] = classify_landing(page.url, sp["secure"], sp.get("home_url"), sp["base"])
        v["who"] = data.get("nameID") or data.get("nameId") or data.get("name_id")
        attrs = data.get("attributes") or {}
        v["uid"] = attrs.get("uid")
        v["attributes"] = attrs
    return v


def shibd_log_offset(env):
    path = os.path.join(os.path.dirname(env["TRANSACTION_LOG"]), "shibd.log")
    try:
        return os.path.getsize(path)
    except OSError:
        return 0


def shibd_log_since(env, offset):
    path = os.path.join(os.path.dirname(env["TRANSACTION_LOG"]), "shibd.log")
    try:
        with open(path, "rb") as f:
            f.seek(offset)
            lines = f.read().decode("utf-8", "replace").splitlines()
    except OSError:
        return []
    keep = [re.sub(r"^\S+ \S+ ", "", l) for l in lines if re.search(r" (WARN|ERROR|CRIT|FATAL) ", l)]
    return keep[:8]


def compare(real, mock):
    if real["verdict"] != mock["verdict"]:
        return False, "verdict"
    if real["verdict"] != "accepted":
        return True, ""
    diffs = []
    if real.get("landed") != mock.get("landed"):
        diffs.append("landed")
    if real.get("who") != mock.get("who"):
        diffs.append("nameid")
    if (real.get("uid") or None) != (mock.get("uid") or None):
        diffs.append("uid")
    return not diffs, ",".join(diffs)


# ---------------------------------------------------------------------------------------------
# The run.
# ---------------------------------------------------------------------------------------------

def run(args, cases):
    work = tempfile.mkdtemp(prefix="sp-oracle-")
    os.chmod(work, 0o755)  # Apache's children run as www-data when this runs as root
    port = free_port_block()
    results = []
    groups = {}
    for c in cases:
        variant = c["knob"] if c["knob"] in METADATA_KNOBS else ""
        key = (c["profile"], json.dumps(c["settings"], sort_keys=True), variant)
        groups.setdefault(key, []).append(c)
    print("sp-oracle: %d cases, %d real SP instances, serve on 127.0.0.1:%d…, work dir %s%s"
          % (len(cases), len(groups), port, work,
             ", serve --sp-personality shibboleth" if args.personality else " (serve has no --sp-personality: plain mock SP)"),
          flush=True)
    t0 = time.time()
    try:
        for gi, ((profile, settings_json, variant), group) in enumerate(groups.items()):
            settings = json.loads(settings_json)
            gdir = os.path.join(work, "g%02d" % gi)
            os.makedirs(gdir, mode=0o755)
            serve_log = os.path.join(gdir, "serve.log")
            # 1. the IdP metadata `serve` publishes on these ports (with the metadata knob, if any)
            proc, info = start_serve(args, profile, variant or None, port, log_path=serve_log)
            md_url = info["idp"]["metadata"]
            md = Browser().fetch(md_url)
            PROCS.stop_serve(proc)
            if md.status != 200:
                raise RuntimeError("IdP metadata %s: HTTP %d" % (md_url, md.status))
            idp_md = os.path.join(gdir, "idp-metadata.xml")
            with open(idp_md, "wb") as f:
                f.write(md.body)
            # 2. the real SP trusting it
            real_settings = dict(settings)
            t_sp = time.time()
            sp_dir = os.path.join(gdir, "sp")
            env = start_real_sp(args, sp_dir, idp_md, real_settings)
            if "homeURL" in real_settings:  # a page of the SP (Shibboleth's default homeURL is "/")
                with open(os.path.join(sp_dir, "htdocs", real_settings["homeURL"].lstrip("/")), "w") as f:
                    f.write("<!DOCTYPE html><html><body><p>home page</p></body></html>\n")
                env["HOME_URL"] = urllib.parse.urljoin(env["BASE"] + "/", real_settings["homeURL"])
            print("  real SP %s [%s%s] on %s (%.1fs)" % (profile, ";".join("%s=%s" % kv for kv in sorted(settings.items())) or "stock",
                                                      (" +" + variant + " metadata") if variant else "", env["BASE"], time.time() - t_sp), flush=True)
            for c in group:
                r = run_case(args, c, env, port, gdir, serve_log, real_settings)
                if session_lost(r["real"]):
                    # The real SP accepted the Response (302 from its ACS) and then knew no
                    # session: an instance fault seen about once in ten full runs, not a
                    # verdict. Restart the instance and run the case once more; the first
                    # attempt stays in the results.
                    print("  real SP lost the session it had just made; restarting it and running the case again", flush=True)
                    PROCS.stop_sp(sp_dir)
                    env.update(start_real_sp(args, sp_dir, idp_md, real_settings))
                    first = r["real"]
                    r = run_case(args, c, env, port, gdir, serve_log, real_settings)
                    r["real_first_attempt"] = first
                results.append(r)
            PROCS.stop_sp(sp_dir)
    finally:
        PROCS.cleanup()
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
        else:
            print("sp-oracle: kept %s" % work)
    return results, time.time() - t0


def session_lost(real):
    """The real SP's ACS answered 302 (the login accepted), then the resource sent the browser
    back to the IdP: the session it had just made was not found."""
    trail = real.get("trail") or []
    for i, step in enumerate(trail):
        if "/Shibboleth.sso/SAML2/POST" in step and step.endswith("→ 302"):
            return real.get("verdict") != "accepted" and any("/idp/profile/" in later or "/simplesaml/" in later for later in trail[i + 1:])
    return False


def run_case(args, c, env, port, gdir, serve_log, real_settings):
    t = time.time()
    mock_settings = dict(real_settings)
    proc, info = start_serve(args, c["profile"], c["knob"], port, sp_metadata=env["METADATA"],
                             settings=mock_settings, log_path=serve_log)
    try:
        user = next(u for u in info["users"] if u["username"] == "alice")
        sp = dict(info["sp"])
        if "homeURL" in mock_settings:
            sp["home_url"] = urllib.parse.urljoin(sp["base"] + "/", mock_settings["homeURL"])
        # (a) the mock SP
        b = Browser()
        try:
            page, acs, note = login(b, sp["secure"], user["username"], user["password"], sp["base"])
            mock = judge_mock(sp, page, acs, note, b)
        except Exception as e:  # a dead connection is a verdict too
            mock = {"verdict": "error", "error": "%s: %s" % (type(e).__name__, e), "trail": b.trail[-6:]}
        # (b) the real Shibboleth SP
        b = Browser()
        before = shibd_log_offset(env)
        try:
            page, acs, note = login(b, env["WHOAMI"], user["username"], user["password"], env["BASE"])
            real = judge_real(env, page, acs, note, b, before)
        except Exception as e:
            real = {"verdict": "error", "error": "%s: %s" % (type(e).__name__, e), "trail": b.trail[-6:]}
    finally:
        PROCS.stop_serve(proc)
    agree, what = compare(real, mock)
    r = {"id": c["id"], "knob": c["knob"], "profile": c["profile"], "settings": c["settings"], "seed": info["_seed"],
         "real": real, "mock": mock, "agree": agree, "differs_in": what,
         "real_error": real.get("error"), "mock_reason": mock.get("reason"),
         "seconds": round(time.time() - t, 2)}
    print(summary_line(r), flush=True)
    return r


def verdict_text(v):
    if v["verdict"] == "accepted":
        return "accepted→%s NameID %s uid=%s" % (v.get("landed"), v.get("who"), ",".join(v.get("uid") or []) or "-")
    if v["verdict"] == "refused":
        return "refused %d %s" % (v.get("status", 0), v.get("reason") or (v.get("error") or "")[:90])
    return "%s %s" % (v["verdict"], (v.get("error") or "")[:90])


def summary_line(r):
    return "%s %-70s real: %s | mock: %s" % ("  ok " if r["agree"] else "DIFF ", r["id"][:70],
                                             verdict_text(r["real"]), verdict_text(r["mock"]))


def markdown(results):
    rows = ["| case | real Shibboleth SP 3.4.1 | mock SP | agree |", "|---|---|---|---|"]
    for r in results:
        def cell(v, real):
            if v["verdict"] == "accepted":
                extra = (", REMOTE_USER %s" % (v.get("remote_user") or "(empty)")) if real else ""
                return "accepted → %s, NameID %s%s, uid %s" % (v.get("landed"), v.get("who"), extra, ", ".join(v.get("uid") or []) or "—")
            if v["verdict"] == "refused":
                detail = (v.get("error") or "") if real else "`%s`" % (v.get("reason") or "?")
                return "refused (%d): %s" % (v.get("status", 0), detail)
            return "%s: %s" % (v["verdict"], v.get("error") or "")
        esc = lambda s: s.replace("|", "\\|").replace("\n", " ")
        rows.append("| %s | %s | %s | %s |" % (esc(r["id"]), esc(cell(r["real"], True)), esc(cell(r["mock"], False)),
                                              "yes" if r["agree"] else "**no** (%s)" % r["differs_in"]))
    return "\n".join(rows)


DOC = os.path.join(ROOT, "docs", "sp-personalities.md")
BEGIN, END = "<!-- sp-oracle:begin -->", "<!-- sp-oracle:end -->"


def render_doc(doc, path=DOC):
    """Rewrites the generated part of docs/sp-personalities.md from a results document."""
    text = open(path).read()
    if BEGIN not in text or END not in text:
        raise SystemExit("sp-oracle: %s has no %s … %s section" % (path, BEGIN, END))
    table = "\n".join([
        BEGIN,
        "Generated by `python3 scripts/sp-oracle.py --doc` on %s: %d cases in %.0f s against %s (%s), "
        "%d disagreements. The mock SP ran with `--sp-personality shibboleth` and the same setting as the real SP."
        % (doc["generated"], doc["cases"], doc["seconds"], doc["real_sp"]["package"], doc["real_sp"]["config"],
           doc["disagreements"]),
        "",
        markdown(doc["results"]),
        END])
    head, rest = text.split(BEGIN, 1)
    tail = rest.split(END, 1)[1]
    with open(path, "w") as f:
        f.write(head + table + tail)
    print("sp-oracle: wrote %s" % os.path.relpath(path))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--doc", action="store_true", help="also rewrite the comparison table in docs/sp-personalities.md")
    ap.add_argument("--render-doc", metavar="JSON", help="only rewrite docs/sp-personalities.md from saved results, run nothing")
    ap.add_argument("--only", action="append", default=[], help="run only the cases whose id contains this (repeatable)")
    ap.add_argument("--binary", default=DEFAULT_BINARY, help="the samlharness binary (default: .build/debug/samlharness)")
    ap.add_argument("--out", default=DEFAULT_OUT, help="the JSON results (default: docs/sp-oracle-results.json)")
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table of the results on stdout")
    ap.add_argument("--check", action="store_true", help="exit 1 when any case disagrees")
    ap.add_argument("--list", action="store_true", help="list the case ids and exit")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--keep", action="store_true", help="keep the work directory (logs, configurations)")
    ap.add_argument("--no-personality", action="store_true", help="never pass --sp-personality/--sp-setting to serve")
    args = ap.parse_args()
    if args.render_doc:
        with open(args.render_doc) as f:
            render_doc(json.load(f))
        return 0
    cases = [c for c in all_cases() if not args.only or any(o in c["id"] for o in args.only)]
    if args.list:
        for c in cases:
            print(c["id"])
        return 0
    if not cases:
        print("sp-oracle: no case matches --only %s" % args.only, file=sys.stderr)
        return 2
    for _ in range(60):  # the lead rebuilds the binary from time to time
        if os.access(args.binary, os.X_OK):
            try:
                args.personality = (not args.no_personality) and serve_supports(args.binary, "--sp-personality")
                break
            except (OSError, subprocess.SubprocessError):
                pass
        time.sleep(5)
    else:
        print("sp-oracle: no usable %s" % args.binary, file=sys.stderr)
        return 2

    def interrupted(signum, frame):
        raise KeyboardInterrupt
    signal.signal(signal.SIGTERM, interrupted)
    try:
        results, seconds = run(args, cases)
    except KeyboardInterrupt:
        print("sp-oracle: interrupted; processes stopped", file=sys.stderr)
        return 130
    shib = subprocess.run(["dpkg-query", "-W", "-f=${Version}", "libapache2-mod-shib"], capture_output=True, text=True).stdout
    doc = {"schema": "samlharness-sp-oracle/1",
           "generated": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
           "real_sp": {"product": "Shibboleth SP", "package": "libapache2-mod-shib " + (shib or "unknown"),
                       "config": "scripts/setup-shibboleth-sp.sh (stock security-policy.xml, clockSkew 180, MessageFlow expires 60)"},
           "serve_sp_personality": args.personality,
           "seconds": round(seconds, 1),
           "cases": len(results), "disagreements": sum(not r["agree"] for r in results),
           "results": results}
    if not args.only or args.out != DEFAULT_OUT:
        os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
        with open(args.out, "w") as f:
            json.dump(doc, f, indent=1, ensure_ascii=False)
            f.write("\n")
        print("sp-oracle: wrote %s" % os.path.relpath(args.out))
    else:
        print("sp-oracle: --only run, %s left as it was (give --out to write one)" % os.path.relpath(args.out))
    print("sp-oracle: %d cases in %.0f s, %d disagree" % (len(results), seconds, doc["disagreements"]))
    if args.markdown:
        print()
        print(markdown(results))
    if args.doc:
        render_doc(doc)
    if args.check:
        bad = [r for r in results if not r["agree"]]
        if bad:
            print("sp-oracle: disagreements:")
            for r in bad:
                print("  " + summary_line(r))
            return 1
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    finally:
        PROCS.cleanup()
