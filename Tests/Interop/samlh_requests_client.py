#!/usr/bin/env python3
"""A client under test for `samlharness run` (docs/running-clients.md), written with
python-requests: the field's "requests with verify=False" client, on demand.

    samlharness run --client "python3 Tests/Interop/samlh_requests_client.py" \
        --filter flow:web-sso --filter flow:web-sso-idp-initiated --filter flow:http-basic --filter flow:cas-rest
    samlharness run --client "SAMLH_TLS_VERIFY=off python3 Tests/Interop/samlh_requests_client.py" …

(The runner starts the client in a clean environment: SAMLH_TLS_VERIFY goes in the command line
or a client file's `environment`, not in the runner's. `--client` has no flow list: the runner
gives it every flow it selects, and the others fail.)

TLS. The server certificate is verified against SAMLH_CA_FILE (the harness's local CA, given
for the https scenarios), else against requests' own bundle (certifi). With SAMLH_TLS_VERIFY=off
in the environment the very same client runs with `verify=False` and urllib3's
InsecureRequestWarning silenced — the bug this client exists to model: it then talks to any
server over any certificate (self-signed, expired, another host's) and sends it the password.
A refused certificate is reported by name: "TLS: certificate verify failed: <OpenSSL's
reason> (<url>)", e.g. `self-signed certificate`, `certificate has expired`, `IP address mismatch,
certificate is not valid for '127.0.0.1'.`; a handshake that fails otherwise as "TLS: handshake
failed: <reason> (<url>)" (WRONG_VERSION_NUMBER: no TLS on that port).

Supported flows (SUPPORTED; any other SAMLH_FLOW: outcome failure "flow X not supported by this
client", exit 2):
- web-sso, web-sso-idp-initiated: GET SAMLH_START_URL, then walk as a scripted browser: the
  login form (SAMLH_USERNAME into the user field, SAMLH_PASSWORD into the password field), the
  one-time-code form (SAMLH_SECOND_FACTOR_CODE), the consent page (accepted, or declined when
  SAMLH_CONSENT=decline), auto-post forms carrying SAMLResponse/SAMLRequest/RelayState (posted
  as served); at most 15 form steps. A login form coming back after the password post is a
  failure ("the IdP refused the password: …"), so is a code form after the code post. Success:
  a 200 page at the resource's origin (the start URL's for SP-initiated, SAMLH_SP_URL's for
  IdP-initiated) showing no login form. SAMLH_SECOND_LOGIN=1: after that, the SP's cookies are
  dropped and the start URL opened again in the same session (the IdP session must carry it).
- http-basic: GET SAMLH_START_URL without credentials; a 401 with a Basic challenge is answered
  once, for that request only (user-pass as UTF-8); success on 200.
- cas-rest (Apereo CAS REST v1): POST username/password to SAMLH_START_URL (the tickets
  endpoint) → 201, Location = the TGT (must stay on the CAS origin); POST service=SAMLH_CAS_SERVICE
  to it → the service ticket; ONE validation, GET SAMLH_CAS_VALIDATE_URL?service=<the same
  string>&ticket=ST-… ; success on cas:authenticationSuccess (or CAS 1 "yes"), failure "CODE: text"
  on cas:authenticationFailure; then DELETE the TGT (logout).

Everywhere: one requests.Session (cookies kept; trust_env off, so no ~/.netrc credentials or
proxy variables slip in; SAMLH_VIA_PROXY=URL sends everything through that forward proxy, as
`samlharness record` needs), redirects followed by hand (each hop visible, at most 20 per request;
an https→http redirect is refused, never followed with the session's cookies), a Basic 401
answered once per request, a per-request timeout of SAMLH_REQUEST_TIMEOUT seconds (default 10).

Result (SAMLH_RESULT_FILE): {"outcome": "success"|"failure", "error": "...", "resource": "<the
last body, at most 4000 characters>", "details": {...}}. Exit 0 on success, 1 on a reported
failure, 2 for an unsupported flow.
"""
import base64
import json
import os
import re
import ssl
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit, urlunsplit

import requests
import urllib3

from html_forms import forms_of  # beside this script

SUPPORTED = ("web-sso", "web-sso-idp-initiated", "http-basic", "cas-rest")
MAX_REDIRECTS = 20
MAX_FORM_STEPS = 15
RESOURCE_LIMIT = 4000
CAS_NS = "{http://www.yale.edu/tp/cas}"
USERISH = ("user", "login", "email", "mail", "uid", "name")
TLS_OFF = ("off", "0", "false", "no")


class Failure(Exception):
    """A failure the client reports: its message is the result's `error`."""

    def __init__(self, message, resource=""):
        super().__init__(message)
        self.resource = resource


# ---------------------------------------------------------------------------------------------
# HTML forms


class TextParser(HTMLParser):
    """The page's visible text (for error messages): no scripts, no styles, blanks collapsed."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self._skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in ("script", "style"):
            self._skip += 1

    def handle_endtag(self, tag):
        if tag in ("script", "style") and self._skip:
            self._skip -= 1

    def handle_data(self, data):
        if not self._skip:
            self.parts.append(data)


def page_text(response, limit=1500):
    body = response.text if response is not None else ""
    if "html" in response.headers.get("Content-Type", "").lower() or body.lstrip().startswith("<"):
        parser = TextParser()
        try:
            parser.feed(body)
            body = " ".join(parser.parts)
        except Exception:  # noqa: BLE001
            pass
    text = re.sub(r"\s+", " ", body).strip()
    return text[:limit] + ("…" if len(text) > limit else "")


def field_names(form):
    return {f["name"] for f in form["fields"] if f["name"]}


def password_field(form):
    return next((f for f in form["fields"] if f["type"] == "password" and f["name"]), None)


def code_field(form):
    return next((f for f in form["fields"] if f["name"] and f["type"] in ("text", "number", "tel", "password")
                 and (f["name"] == "j_tokenNumber" or f.get("autocomplete") == "one-time-code")), None)


def form_pairs(form, values=None, submitter=None):
    """The (name, value) pairs a browser submits: `values` fill fields by name; the submit button
    `submitter` (a name), else the form's first named submit button, is sent as pressed."""
    values = values or {}
    pairs = []
    for f in form["fields"]:
        name, kind = f["name"], f["type"]
        if not name or kind in ("submit", "image", "reset", "file", "button") or kind.startswith("button-"):
            continue
        if kind in ("checkbox", "radio") and not f.get("checked"):
            continue
        pairs.append((name, values.get(name, f["value"] if f["value"] is not None else "")))
    buttons = [f for f in form["fields"] if f["name"] and f["type"] in ("submit", "button-submit")]
    chosen = [f for f in buttons if f["name"] == submitter] if submitter else buttons[:1]
    if chosen:
        pairs.append((chosen[0]["name"], chosen[0]["value"]))
    return pairs


def form_action(form, page_url):
    """The form's action resolved as a browser does (WHATWG URL): an empty action is the page
    itself; `?…` replaces the page's query (urljoin would keep the old one for a bare `?`)."""
    action = (form["action"] or "").strip()
    if not action:
        return page_url
    if action.startswith("?"):
        parts = urlsplit(page_url)
        return urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")) + action
    return urljoin(page_url, action)


# ---------------------------------------------------------------------------------------------
# HTTP: one session, redirects by hand, Basic challenges answered once per request


def origin(url):
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return (parts.scheme, (parts.hostname or "").lower(), port)


def basic_challenged(response):
    header = response.headers.get("WWW-Authenticate", "")
    return response.status_code == 401 and re.search(r"(^|,)\s*basic(\s|,|$)", header, re.I) is not None


def basic_token(username, password):
    return "Basic " + base64.b64encode(("%s:%s" % (username, password)).encode("utf-8")).decode("ascii")


def certificate_problem(error):
    """OpenSSL's verify message from somewhere in the exception chain (requests' SSLError wraps
    urllib3's MaxRetryError, whose reason wraps urllib3's SSLError, which wraps the ssl error)."""
    seen, todo, ssl_error = set(), [error], None
    while todo:
        e = todo.pop(0)
        if e is None or id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, ssl.SSLCertVerificationError):
            return "certificate verify failed: " + (e.verify_message or e.reason or str(e))
        if isinstance(e, ssl.SSLError) and ssl_error is None:
            ssl_error = e
        linked = [e.__cause__, e.__context__, getattr(e, "reason", None)] + list(getattr(e, "args", ()))
        todo += [x for x in linked if isinstance(x, BaseException)]
    if ssl_error is not None:  # not a certificate: a handshake that failed (no TLS there, a protocol alert…)
        # OpenSSL's own words too ("[SSL: TLSV1_ALERT_PROTOCOL_VERSION] tlsv1 alert protocol version").
        return "handshake failed: %s (%s)" % (ssl_error.reason or ssl_error.strerror or ssl_error, ssl_error)
    return str(error)


class Browser:
    def __init__(self, env):
        self.env = env
        self.timeout = float(env.get("SAMLH_REQUEST_TIMEOUT") or 10)
        self.tls_verify_off = env.get("SAMLH_TLS_VERIFY", "").strip().lower() in TLS_OFF
        if self.tls_verify_off:
            # THE BUG BEING MODELLED: verification switched off, and the warning that would say
            # so silenced — what field code does to "make https work". Any certificate is taken.
            self.verify = False
            urllib3.disable_warnings(urllib3.exceptions.InsecureRequestWarning)
        else:
            self.verify = env.get("SAMLH_CA_FILE") or True
        self.session = requests.Session()
        self.session.trust_env = False  # no ~/.netrc credentials, no proxy or CA variables
        # SAMLH_VIA_PROXY: every request through this forward proxy (samlharness record), named
        # explicitly — trust_env stays off, and loopback goes through it too.
        if env.get("SAMLH_VIA_PROXY"):
            self.session.proxies = {"http": env["SAMLH_VIA_PROXY"], "https": env["SAMLH_VIA_PROXY"]}
        self.session.verify = self.verify
        self.username = env.get("SAMLH_USERNAME", "")
        self.password = env.get("SAMLH_PASSWORD", "")
        self.hops = []  # [method, url, status] for every request sent
        self.cookie_origins = {}  # (domain, path, name) -> the origin whose answer set it

    def send(self, method, url, data=None, params=None, headers=None):
        """One request, a Basic 401 answered once for it; no redirect followed."""
        response = self._send(method, url, data, params, headers)
        if basic_challenged(response):
            answered = dict(headers or {})
            answered["Authorization"] = basic_token(self.username, self.password)
            response = self._send(method, url, data, params, answered)
        return response

    def _send(self, method, url, data, params, headers):
        try:
            response = self.session.request(method, url, data=data, params=params, headers=headers,
                                            allow_redirects=False, timeout=self.timeout)
        except requests.exceptions.SSLError as error:
            raise Failure("TLS: %s (%s)" % (certificate_problem(error), url)) from error
        except requests.exceptions.Timeout as error:
            raise Failure("timeout: no answer from %s within %g s (%s)" % (url, self.timeout, error)) from error
        except requests.exceptions.ChunkedEncodingError as error:
            raise Failure("connection: the answer from %s was cut off (%s)" % (url, error)) from error
        except requests.exceptions.ConnectionError as error:
            raise Failure("connection failed: %s (%s)" % (error, url)) from error
        except requests.exceptions.RequestException as error:
            raise Failure("%s: %s (%s)" % (type(error).__name__, error, url)) from error
        self.hops.append([method, response.url, response.status_code])
        for cookie in response.cookies:
            self.cookie_origins[(cookie.domain, cookie.path, cookie.name)] = origin(response.url)
        return response

    def fetch(self, method, url, data=None, params=None, headers=None):
        """A request and the redirects after it, by hand: 303 (and 301/302 after a POST) turn into
        a GET without body; 307/308 repeat the request. An https→http hop is refused."""
        response = self.send(method, url, data, params, headers)
        for _ in range(MAX_REDIRECTS):
            location = response.headers.get("Location")
            if response.status_code not in (301, 302, 303, 307, 308) or not location:
                return response
            target = urljoin(response.url, location.strip())
            scheme = urlsplit(target).scheme.lower()
            if scheme not in ("http", "https"):
                return response  # an app callback: the caller reads it
            if urlsplit(response.url).scheme == "https" and scheme == "http":
                raise Failure("refused the redirect from https to plain http: %s → %s" % (response.url, target),
                              response.text)
            if response.status_code == 303 or (response.status_code in (301, 302) and method == "POST"):
                method, data = "GET", None
            response = self.send(method, target, data, None, headers)
        raise Failure("too many redirects (more than %d), last Location %s"
                      % (MAX_REDIRECTS, response.headers.get("Location")), response.text)

    def forget_cookies_of(self, resource_origin):
        """Drops the cookies a server on `resource_origin` set (the SP's session), keeping the rest
        (the IdP's session: another port of the same host, so the jar cannot tell by domain)."""
        for cookie in list(self.session.cookies):
            if self.cookie_origins.get((cookie.domain, cookie.path, cookie.name)) == resource_origin:
                self.session.cookies.clear(cookie.domain, cookie.path, cookie.name)


# ---------------------------------------------------------------------------------------------
# Flows


def describe(response):
    return "HTTP %d at %s: %s" % (response.status_code, response.url, page_text(response))


def web_sso_walk(browser, start, code):
    """From the start URL to the first page that asks nothing we know how to answer."""
    response = browser.fetch("GET", start, headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    password_posted = code_posted = False
    for _ in range(MAX_FORM_STEPS):
        if response.status_code != 200:
            return response
        forms = forms_of(response.text)
        saml = next((f for f in forms if {"SAMLResponse", "SAMLRequest"} & field_names(f)), None)
        login = next((f for f in forms if password_field(f) is not None), None)
        mfa = next((f for f in forms if code_field(f) is not None), None)
        consent = next((f for f in forms if {"_shib_idp_consentIds", "_eventId_AttributeReleaseRejected"}
                        & field_names(f)), None)
        if saml is not None:  # a browser's auto-post: every field as served
            form, pairs = saml, form_pairs(saml)
        elif login is not None:
            if password_posted:
                raise Failure("the IdP refused the password: " + describe(response), response.text)
            password_posted = True
            secret = password_field(login)["name"]
            texts = [f for f in login["fields"] if f["name"] and f["type"] in ("text", "email")]
            user = next((f for f in texts if any(u in f["name"].lower() for u in USERISH)), texts[0] if texts else None)
            values = {secret: browser.password}
            if user is not None:
                values[user["name"]] = browser.username
            form, pairs = login, form_pairs(login, values)
        elif mfa is not None:
            if code is None:
                raise Failure("the IdP asks for a one-time code and SAMLH_SECOND_FACTOR_CODE is not set: "
                              + describe(response), response.text)
            if code_posted:
                raise Failure("the IdP refused the one-time code: " + describe(response), response.text)
            code_posted = True
            form, pairs = mfa, form_pairs(mfa, {code_field(mfa)["name"]: code}, "_eventId_proceed")
        elif consent is not None:
            decline = browser.env.get("SAMLH_CONSENT", "").lower() == "decline"
            form, pairs = consent, form_pairs(consent, submitter="_eventId_AttributeReleaseRejected"
                                              if decline else "_eventId_proceed")
        else:
            return response
        action = form_action(form, response.url)
        if form["method"] == "post":
            response = browser.fetch("POST", action, data=pairs)
        else:
            parts = urlsplit(action)
            response = browser.fetch("GET", urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")), params=pairs)
    raise Failure("the login did not end after %d form steps; last page %s" % (MAX_FORM_STEPS, describe(response)),
                  response.text)


def web_sso(browser, env):
    start = env["SAMLH_START_URL"]
    idp_initiated = env["SAMLH_FLOW"] == "web-sso-idp-initiated"
    resource_origin = origin(env["SAMLH_SP_URL"] if idp_initiated and env.get("SAMLH_SP_URL") else start)
    code = env.get("SAMLH_SECOND_FACTOR_CODE") or None
    logins = 2 if env.get("SAMLH_SECOND_LOGIN") == "1" else 1
    for login in range(logins):
        if login:
            browser.forget_cookies_of(resource_origin)
        final = web_sso_walk(browser, start, code)
        where = "" if origin(final.url) == resource_origin else " (not the resource's server)"
        if final.status_code != 200 or where or any(password_field(f) for f in forms_of(final.text)):
            raise Failure("%s%s" % (describe(final), where), final.text)
    return final.text, {"final_url": final.url}


def http_basic(browser, env):
    final = browser.fetch("GET", env["SAMLH_START_URL"])
    if final.status_code != 200:
        refused = " (the credentials were refused)" if basic_challenged(final) else ""
        raise Failure(describe(final) + refused, final.text)
    return final.text, {"final_url": final.url}


def cas_validation(answer):
    text = answer.text
    if text.startswith("yes\n"):
        return text
    if text.startswith("no\n"):
        raise Failure("CAS 1 validation answered no", text)
    if answer.status_code != 200:
        raise Failure("validation failed: " + describe(answer), text)
    try:
        root = ET.fromstring(answer.content)
    except ET.ParseError as error:
        raise Failure("the validation answer is not XML (%s): %s" % (error, text[:300]), text) from error
    failure = root.find(".//%sauthenticationFailure" % CAS_NS)
    if failure is not None:
        raise Failure("%s: %s" % (failure.get("code", "?"), (failure.text or "").strip()), text)
    success = root.find(".//%sauthenticationSuccess" % CAS_NS)
    if success is None or not (success.findtext("%suser" % CAS_NS) or "").strip():
        raise Failure("the validation answer holds neither cas:authenticationSuccess nor a failure: " + text[:300], text)
    return text


def cas_rest(browser, env):
    tickets = env["SAMLH_START_URL"]
    service = env["SAMLH_CAS_SERVICE"]
    validate_url = env["SAMLH_CAS_VALIDATE_URL"]
    # 1. The TGT: one password submission, a refusal is final.
    created = browser.send("POST", tickets, data=[("username", browser.username), ("password", browser.password)],
                           headers={"Accept": "text/plain"})
    location = created.headers.get("Location")
    if created.status_code != 201 or not location:
        words = " (the CAS server refused the password)" if created.status_code == 401 else ""
        raise Failure("no TGT: HTTP %d from %s%s: %s" % (created.status_code, tickets, words, created.text[:500]),
                      created.text)
    tgt = urljoin(tickets, location.strip())
    if origin(tgt) != origin(tickets):  # a TGT is a credential: it stays on the CAS server
        raise Failure("the TGT Location %s is not on the CAS server %s" % (tgt, tickets))
    try:
        # 2. A service ticket for exactly SAMLH_CAS_SERVICE (form-encoded as a whole).
        issued = browser.send("POST", tgt, data=[("service", service)], headers={"Accept": "text/plain"})
        ticket = issued.text.strip()
        if issued.status_code != 200 or not ticket.startswith(("ST-", "PT-")):
            raise Failure("no service ticket: HTTP %d from %s: %s" % (issued.status_code, tgt, ticket[:300]),
                          issued.text)
        # 3. One validation, with the very service string the ticket was issued for.
        answer = browser.send("GET", validate_url, params=[("service", service), ("ticket", ticket)])
        return cas_validation(answer), {"ticket": ticket, "validation_url": answer.url}
    finally:
        # 4. Logout: the TGT is a live credential.
        try:
            browser.send("DELETE", tgt)
        except Failure:
            pass


FLOWS = {"web-sso": web_sso, "web-sso-idp-initiated": web_sso, "http-basic": http_basic, "cas-rest": cas_rest}
assert set(FLOWS) == set(SUPPORTED)


def write(result, path):
    result["resource"] = (result.get("resource") or "")[:RESOURCE_LIMIT]
    with open(path, "w", encoding="utf-8") as f:
        json.dump(result, f, ensure_ascii=False)


def main():
    env = os.environ
    result_file = env.get("SAMLH_RESULT_FILE")
    if not result_file:
        sys.stderr.write("SAMLH_RESULT_FILE is not set (run me under `samlharness run`)\n")
        return 2
    flow = env.get("SAMLH_FLOW", "")
    if flow not in SUPPORTED:
        write({"outcome": "failure", "error": "flow %s not supported by this client (supported: %s)"
               % (flow or "(unset)", ", ".join(SUPPORTED))}, result_file)
        return 2
    browser = None
    try:
        browser = Browser(env)
        resource, details = FLOWS[flow](browser, env)
        result = {"outcome": "success", "error": "", "resource": resource, "details": details}
    except Failure as failure:
        result = {"outcome": "failure", "error": str(failure), "resource": failure.resource, "details": {}}
    except KeyError as missing:
        result = {"outcome": "failure", "error": "%s is not set" % missing.args[0], "details": {}}
    except Exception as error:  # noqa: BLE001 - every failure is reported, never a traceback alone
        result = {"outcome": "failure", "error": "%s: %s" % (type(error).__name__, error), "details": {}}
    if browser is not None:
        result["details"]["tls_verify"] = "off" if browser.tls_verify_off else str(browser.verify)
        result["details"]["requests"] = json.dumps(browser.hops[-60:])
    write(result, result_file)
    if result["outcome"] != "success":
        sys.stderr.write("failure: %s\n" % result["error"])
    return 0 if result["outcome"] == "success" else 1


if __name__ == "__main__":
    sys.exit(main())
