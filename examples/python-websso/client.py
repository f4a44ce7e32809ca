#!/usr/bin/env python3
"""SAML Web SSO as a browser does it, in Python's standard library: a client for `samlharness run`.

  samlharness run --client 'python3 examples/python-websso/client.py' --filter flow:web-sso

From the SP's protected page: follow the redirects, keep each server's cookies, fill the IdP's
login form (or answer its HTTP Basic challenge), answer the one-time-code and consent pages,
post the IdP's auto-submitting SAMLResponse form back to the SP, report the page it ends on.
"""
import base64, http.client, http.cookiejar, json, os, ssl, sys, urllib.error, urllib.parse, urllib.request
from html.parser import HTMLParser

env = os.environ
USER, PASSWORD, START = env["SAMLH_USERNAME"], env["SAMLH_PASSWORD"], env["SAMLH_START_URL"]
origin = lambda url: urllib.parse.urlsplit(url)[:2]  # (scheme, host:port)
SP = origin(env.get("SAMLH_SP_URL") or START)  # where the login must end (IdP-initiated: START is the IdP)

class Failure(Exception): pass

class Page(HTMLParser):
    """A page's forms — (action, method, [(type, name, value, checked)]) — and its words."""
    def __init__(self, html):
        super().__init__(); self.forms, self.words = [], []; self.feed(html)  # values arrive HTML-unescaped
    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "form": self.forms.append((a.get("action", ""), a.get("method", "get").lower(), []))
        elif tag in ("input", "button") and self.forms and "name" in a:
            kind = a.get("type", "submit" if tag == "button" else "text").lower()
            self.forms[-1][2].append((kind, a["name"], a.get("value", ""), "checked" in a))
    def handle_data(self, data): self.words += data.split()

class CookiesPerOrigin(urllib.request.BaseHandler):
    """A cookie jar per origin: the IdP's cookies go back to the IdP only, the SP's to the SP."""
    jars = {}
    def jar(self, r): return self.jars.setdefault(origin(r.full_url), http.cookiejar.CookieJar())
    def http_request(self, r): self.jar(r).add_cookie_header(r); return r
    def http_response(self, r, answer): self.jar(r).extract_cookies(answer, r); return answer
    https_request, https_response = http_request, http_response

class Redirects(urllib.request.HTTPRedirectHandler):  # 302/303 after a POST: a GET without the body
    def redirect_request(self, r, fp, code, msg, headers, url):
        if r.full_url.startswith("https:") and url.startswith("http:"):  # the cookies would travel in clear
            raise Failure(f"refused the https to http redirect to {url}")
        return super().redirect_request(r, fp, code, msg, headers, url)

tls = ssl.create_default_context(cafile=env.get("SAMLH_CA_FILE") or None)  # the harness's test CA, if https
opener = urllib.request.build_opener(CookiesPerOrigin(), Redirects(), urllib.request.HTTPSHandler(context=tls))

def fetch(url, fields=None, authorization=None):
    """GET, or POST `fields` form-urlencoded (`+ = /` as %2B %3D %2F): the final URL, status, headers, text."""
    request = urllib.request.Request(url, None if fields is None else urllib.parse.urlencode(fields).encode())
    if authorization: request.add_unredirected_header("Authorization", authorization)  # not after a redirect
    try: answer = opener.open(request, timeout=float(env.get("SAMLH_REQUEST_TIMEOUT", "10")))
    except urllib.error.HTTPError as error:  # a 4xx/5xx page is an answer too; a 3xx here is a redirect loop
        if error.code < 400: raise Failure(f"stopped a redirect loop at {error.url}: {error.reason}")
        answer = error
    with answer: return answer.url, answer.status, answer.headers, answer.read().decode("utf-8", "replace")

def submit(url, form, values, button):
    """Submit as a browser: the form's fields (checked boxes only), `values` over them, the button pressed."""
    action, method, fields = form
    data = [(name, values.get(name, value)) for kind, name, value, checked in fields
            if kind not in ("submit", "checkbox", "radio") or checked or name == button]
    target = urllib.parse.urljoin(url, action)
    if method == "post": return fetch(target, data)
    return fetch(target.split("?")[0] + "?" + urllib.parse.urlencode(data))

def log_in():
    url, status, headers, body = fetch(START)
    sent = None  # what we sent last: when the same page comes back, it was refused, and we stop
    for _ in range(12):
        page = Page(body); words = " ".join(page.words)[:400]
        if status == 401 and headers.get("WWW-Authenticate", "").lower().startswith("basic") and sent != "basic":
            basic = base64.b64encode(f"{USER}:{PASSWORD}".encode()).decode()  # the IdP asks for HTTP Basic
            (url, status, headers, body), sent = fetch(url, authorization="Basic " + basic), "basic"
            continue
        form = page.forms[0] if page.forms and status == 200 else ("", "", [])
        kinds = {name: kind for kind, name, _, _ in form[2]}
        first = lambda *types: next((n for n, k in kinds.items() if k in types), None)
        if "SAMLResponse" in kinds:  # the IdP's auto-post form: every hidden field as received (RelayState too)
            step, values, button = "response", {}, None
        elif first("password"):  # a login form: the user name in its text field
            if sent == "password": raise Failure(f"the IdP refused the password (its login form came back): {words}")
            values = {first("text", "email"): USER, first("password"): PASSWORD}
            step, button = "password", first("submit")
        elif "j_tokenNumber" in kinds:  # Shibboleth's one-time-code page
            if sent == "code": raise Failure(f"the IdP refused the one-time code: {words}")
            values = {"j_tokenNumber": env.get("SAMLH_SECOND_FACTOR_CODE", "")}
            step, button = "code", "_eventId_proceed"
        elif "_eventId_AttributeReleaseRejected" in kinds:  # Shibboleth's attribute-release consent
            decline = env.get("SAMLH_CONSENT") == "decline"  # the scenario asks the user to refuse
            step, values = "consent", {}
            button = "_eventId_AttributeReleaseRejected" if decline else "_eventId_proceed"
        else:
            break
        (url, status, headers, body), sent = submit(url, form, values, button), step
    # A login ends well only on a 200 page at the SP: never on an IdP page, an error page, a login form.
    if status != 200 or origin(url) != SP:
        raise Failure(f"the login ended with HTTP {status} at {url}: {words}")
    return body

try:
    result = {"outcome": "success", "resource": log_in()}
    if env.get("SAMLH_SECOND_LOGIN") == "1":  # log in again: the SP's session forgotten, the IdP's kept
        CookiesPerOrigin.jars.pop(SP, None)
        result["resource"] = log_in()
except Failure as failure:
    result = {"outcome": "failure", "error": str(failure)}
except (OSError, http.client.HTTPException) as error:  # no answer, a cut connection, a refused certificate
    result = {"outcome": "failure", "error": f"the connection failed: {type(error).__name__}: {error}"}
json.dump(result, open(env["SAMLH_RESULT_FILE"], "w"))
sys.exit(0 if result["outcome"] == "success" else 1)
