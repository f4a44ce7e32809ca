#!/usr/bin/env python3
"""A client under test for `samlharness run` (docs/running-clients.md): a real browser, headless
Chromium driven by Playwright, logging in the way a person at the keyboard would — optionally
through a forward proxy.

    scripts/setup-browser-tests.sh          # once: Debian's /usr/bin/chromium + .venv-browser
    samlharness run --client ".venv-browser/bin/python Tests/Interop/browser_login_client.py" \\
        --filter flow:web-sso

Playwright (the pinned 1.65.2 of .venv-browser) drives Debian's /usr/bin/chromium through
`executable_path`; no browser is ever downloaded. `ignore_https_errors` is never used: Chromium
verifies every certificate, and a certificate it refuses ends the login (below).

Environment (the run contract, plus the browser's own):
  SAMLH_START_URL        where to start (the SP's protected page)
  SAMLH_USERNAME, SAMLH_PASSWORD
  SAMLH_RESULT_FILE      where the result goes (always written)
  SAMLH_REQUEST_TIMEOUT  seconds the whole login may take, from the first navigation to the
                         protected page (default 20; Chromium's start is not counted)
  SAMLH_FLOW             web-sso-idp-initiated: the resource is on SAMLH_SP_URL's origin, not the
                         start URL's
  SAMLH_SP_URL           (see SAMLH_FLOW)
  SAMLH_SECOND_FACTOR_CODE  typed into a one-time-code field when the IdP shows one
  SAMLH_CONSENT          `decline`: the attribute-release consent is refused (else accepted)
  SAMLH_IDP_ENTITY_ID    its origin is the only one whose HTTP Basic/Digest 401 is answered with
                         SAMLH_USERNAME/SAMLH_PASSWORD (profile shibboleth-basic); unset: none is
  SAMLH_BROWSER_PROXY    optional forward proxy, e.g. http://127.0.0.1:8080: Chromium gets
                         --proxy-server=URL and --proxy-bypass-list=<-loopback> (Chromium sends
                         loopback targets — the mocks — around a proxy unless told not to).
                         Chromium's own background requests (update.googleapis.com,
                         accounts.google.com, content-autofill.googleapis.com) go there too:
                         a recording proxy sees them beside the login's
  SAMLH_BROWSER_SPKI     optional base64 SHA-256 SPKI hashes, comma-separated: Chromium gets
                         --ignore-certificate-errors-spki-list=… — the way to trust one
                         intercepting proxy's leaf key without turning verification off.
                         One hash:  openssl x509 -in leaf.pem -noout -pubkey |
                           openssl pkey -pubin -outform der | openssl dgst -sha256 -binary | base64
  SAMLH_CHROMIUM         the browser binary (default /usr/bin/chromium)
  SAMLH_CA_FILE          ignored: Chromium on Linux trusts what NSS trusts (~/.pki/nssdb), not a
                         PEM file; use SAMLH_BROWSER_SPKI for a test server or proxy key

The walk (at most MAX_STEPS steps, every wait bounded by what is left of the deadline):
  1. page.goto(start URL); a navigation that fails (net::ERR_CERT_AUTHORITY_INVALID,
     net::ERR_PROXY_CONNECTION_FAILED, net::ERR_CONNECTION_REFUSED…) is a failure naming it;
  2. after each navigation: the `load` state, then `networkidle` for a moment; then the page:
     - HTTP status >= 400, or Chromium's error page: failure ("HTTP 500 at URL: text"); a
       document whose answer broke off (a connection reset mid-body): failure naming it;
     - a visible password field: SAMLH_USERNAME goes into the first visible username-ish input of
       its form (name/id with user/login/email/mail/uid, else the first text/email input), the
       password into the password field, and the form's submit button is clicked (Enter in the
       password field when it has none). The login form shown again after that: failure, "the
       IdP refused the password: …";
     - a form carrying SAMLResponse/SAMLRequest: the page posts it itself (onload script); it is
       waited for, and submitted by hand only if the page does not do it;
     - a one-time-code field (autocomplete=one-time-code, or j_tokenNumber): the code, once;
     - Shibboleth's attribute-release consent: Accept (Reject with SAMLH_CONSENT=decline);
     - none of those, on the resource's origin: success, resource = the page's inner text;
     - none of those elsewhere: a navigation still to come (a script, a meta refresh) is waited
       for briefly, else failure ("stopped at URL, not the resource's origin: text").

Result (SAMLH_RESULT_FILE): {"outcome": "success"|"failure", "resource": "<the last page's inner
text, or ''>", "error": "<why, or ''>", "details": {"final_url", "status", "pages": [[method,
url, status], …] (main-frame documents, URLs without their query), "browser", "proxy", "spki",
"elapsed"}}. A one-line summary on
stderr. Exit 0 on success, 1 on a reported failure.
"""
import json
import os
import sys
import time
from urllib.parse import urlsplit

CHROMIUM = "/usr/bin/chromium"
MAX_STEPS = 10
DEFAULT_TIMEOUT = 20.0
LAUNCH_TIMEOUT_MS = 30_000
SETTLE_S = 2.0         # networkidle / a page's own auto-post / a late redirect: waited at most this
TEXT_LIMIT = 1500      # page text quoted in an error
USERISH = ("user", "login", "email", "mail", "uid")

# One look at the page, in one evaluation (nothing can navigate between its parts).
INSPECT_JS = """() => {
  const visible = el => {
    if (!el || el.type === 'hidden' || el.disabled) return false;
    const s = getComputedStyle(el), r = el.getBoundingClientRect();
    return s.visibility !== 'hidden' && s.display !== 'none' && r.width > 0 && r.height > 0;
  };
  const named = (f, names) => Array.from(f.elements).some(e => names.includes(e.name));
  const forms = Array.from(document.forms);
  const nav = performance.getEntriesByType('navigation')[0];
  return {
    url: location.href,
    status: nav && nav.responseStatus ? nav.responseStatus : 0,
    password: Array.from(document.querySelectorAll('input[type=password]')).some(visible),
    saml: forms.some(f => named(f, ['SAMLResponse', 'SAMLRequest'])),
    code: Array.from(document.querySelectorAll('input[autocomplete=one-time-code], input[name=j_tokenNumber]'))
            .some(visible),
    consent: forms.some(f => named(f, ['_shib_idp_consentIds', '_eventId_AttributeReleaseRejected'])),
    text: document.body ? document.body.innerText : (document.documentElement ? document.documentElement.textContent : ''),
  };
}"""

SUBMIT_SELECTOR = "button[type=submit]:visible, input[type=submit]:visible, button:not([type]):visible, input[type=image]:visible"
TEXTISH_SELECTOR = ("input:visible:not([type=password]):not([type=hidden]):not([type=submit]):not([type=button])"
                    ":not([type=checkbox]):not([type=radio]):not([type=image]):not([type=reset]):not([type=file])")


class Failure(Exception):
    """A failure the client reports: its message is the result's `error`."""

    def __init__(self, message, resource=""):
        super().__init__(message)
        self.resource = resource


def origin(url):
    parts = urlsplit(url)
    port = parts.port or {"http": 80, "https": 443}.get(parts.scheme)
    return (parts.scheme, (parts.hostname or "").lower(), port)


def without_query(url):
    """A URL for `details`: no query, no fragment (a query may name hosts the client never
    visited — an open-redirect `target` — and security.relaystate-not-followed reads details)."""
    parts = urlsplit(url)
    return "%s://%s%s" % (parts.scheme, parts.netloc, parts.path) if parts.scheme and parts.netloc else url


def snippet(text, limit=TEXT_LIMIT):
    text = " ".join((text or "").split())
    return text[:limit] + ("…" if len(text) > limit else "")


def explain_net_error(message):
    """Chromium's net error with what it means, so that a reader (and `expect.error`) finds
    the words: net::ERR_CERT_* is a certificate refused, ERR_SSL_* a TLS handshake."""
    first = (message or "").strip().split("\n")[0]
    for prefix in ("Page.goto: ", "Error: "):
        if first.startswith(prefix):
            first = first[len(prefix):]
    if "ERR_INVALID_AUTH_CREDENTIALS" in first or "ERR_UNEXPECTED_PROXY_AUTH" in first:
        return "HTTP 401: the server refused the username/password (%s)" % first
    if "ERR_CERT_" in first:
        return "TLS: certificate refused by Chromium: " + first
    if "ERR_SSL_" in first or "ERR_BAD_SSL" in first:
        return "TLS: ssl handshake failed: " + first
    if "ERR_PROXY_" in first or "ERR_TUNNEL_" in first:
        return "proxy: " + first
    if "ERR_TIMED_OUT" in first or "Timeout" in first:
        return "timeout: " + first
    return "connection failed: " + first


def chromium_args(env):
    args = []
    if os.geteuid() == 0:
        args.append("--no-sandbox")  # Chromium's sandbox refuses to start as root
    proxy = (env.get("SAMLH_BROWSER_PROXY") or "").strip()
    if proxy:
        args += ["--proxy-server=" + proxy, "--proxy-bypass-list=<-loopback>"]
    spki = [h.strip() for h in (env.get("SAMLH_BROWSER_SPKI") or "").split(",") if h.strip()]
    if spki:
        args.append("--ignore-certificate-errors-spki-list=" + ",".join(spki))
    return args


def context_options(env):
    """HTTP Basic/Digest at the IdP (profile shibboleth-basic): the credentials go to the IdP's
    origin only (SAMLH_IDP_ENTITY_ID's), as a person answering the browser's dialog there would;
    without that variable no 401 is answered (Chromium: net::ERR_INVALID_AUTH_CREDENTIALS)."""
    idp = env.get("SAMLH_IDP_ENTITY_ID") or ""
    parts = urlsplit(idp)
    if not (parts.scheme in ("http", "https") and parts.netloc):
        return {}
    return {"http_credentials": {"username": env.get("SAMLH_USERNAME", ""), "password": env.get("SAMLH_PASSWORD", ""),
                                 "origin": "%s://%s" % (parts.scheme, parts.netloc)}}


class Walk:
    def __init__(self, page, env, deadline, playwright_errors):
        self.page = page
        self.env = env
        self.deadline = deadline
        self.Error, self.TimeoutError = playwright_errors
        self.username = env.get("SAMLH_USERNAME", "")
        self.password = env.get("SAMLH_PASSWORD", "")
        self.code = env.get("SAMLH_SECOND_FACTOR_CODE") or None
        self.navigations = 0           # main-frame navigations committed
        self.pages = []                # [method, url, status] of main-frame document answers
        self.statuses = {}             # url -> the last main-frame status seen for it
        self.net_failure = None        # the last failed main-frame document request, Chromium's words
        self.cut_off = None            # a document whose answer began and then broke off
        self.answered = set()          # main-frame document requests whose answer began
        self.timeout_s = (deadline - time.monotonic())
        page.on("framenavigated", self._navigated)
        page.on("response", self._response)
        page.on("requestfailed", self._failed)

    # --- events ---------------------------------------------------------------------------

    def _navigated(self, frame):
        if frame == self.page.main_frame:
            self.navigations += 1

    def _main_document(self, request):
        try:
            return request.is_navigation_request() and request.frame == self.page.main_frame
        except Exception:  # noqa: BLE001 - a frame already gone
            return False

    def _response(self, response):
        if self._main_document(response.request):
            self.pages.append([response.request.method, without_query(response.url), response.status])
            self.statuses[response.url] = response.status
            self.answered.add(response.request)

    def _failed(self, request):
        if self._main_document(request):
            self.net_failure = "%s at %s" % (request.failure or "failed", request.url)
            if request in self.answered:
                self.cut_off = self.net_failure
            self.pages.append([request.method, without_query(request.url), request.failure or "failed"])

    # --- time ---------------------------------------------------------------------------------

    def left_ms(self, cap_s=None):
        left = self.deadline - time.monotonic()
        if left <= 0:
            raise Failure("timeout: the login did not finish within %g s (at %s)"
                          % (self.timeout_s, self.page.url))
        return max(1, int(1000 * (min(left, cap_s) if cap_s is not None else left)))

    def check_cut_off(self):
        """A document that committed and then lost its connection (its `load` never comes)."""
        if self.cut_off:
            raise Failure("connection failed: the answer was cut off: " + self.cut_off)

    def settle(self):
        """The page loaded, and its network quiet for a moment (not required)."""
        while True:
            self.check_cut_off()
            try:
                self.page.wait_for_load_state("load", timeout=self.left_ms(0.2))
                break
            except self.TimeoutError:
                self.left_ms()  # raises when the deadline is the reason
            except self.Error:
                break  # the page navigated on meanwhile: the next look sees where it went
        try:
            self.page.wait_for_load_state("networkidle", timeout=self.left_ms(SETTLE_S))
        except self.Error:
            pass

    def wait_navigation(self, before, cap_s=None):
        """True once a main-frame navigation after `before` committed (then settled); False when
        none came within `cap_s` seconds. Without a cap the deadline ends the wait (a Failure)."""
        until = time.monotonic() + cap_s if cap_s is not None else None
        while self.navigations <= before:
            if until is not None and time.monotonic() >= until:
                return False
            self.page.wait_for_timeout(min(50, self.left_ms()))  # lets Playwright deliver events
        self.settle()
        return True

    def look(self):
        """The page's state; retried when a navigation replaced the document mid-look."""
        for _ in range(20):
            try:
                state = self.page.evaluate(INSPECT_JS)
            except self.Error:
                self.left_ms()
                self.settle()
                continue
            if not state.get("status"):
                state["status"] = self.statuses.get(state["url"], 0)
            self.check_cut_off()
            return state
        raise Failure("the page at %s could not be read (it kept navigating)" % self.page.url)

    # --- actions --------------------------------------------------------------------------

    def form_of(self, field):
        form = field.locator("xpath=ancestor::form[1]")
        return form if form.count() else self.page.locator("body")

    def submit(self, scope, fallback_field=None, button_name=None):
        """Clicks the named submit button, else the first visible one, else Enter."""
        buttons = scope.locator(SUBMIT_SELECTOR)
        if button_name:
            named = scope.locator("[name='%s']:visible" % button_name)
            if named.count():
                buttons = named
        if buttons.count():
            buttons.first.click(timeout=self.left_ms())
        elif fallback_field is not None:
            fallback_field.press("Enter", timeout=self.left_ms())
        else:
            scope.evaluate("f => HTMLFormElement.prototype.submit.call(f)")

    def log_in(self):
        password = self.page.locator("input[type=password]:visible").first
        form = self.form_of(password)
        user = None
        candidates = form.locator(TEXTISH_SELECTOR).all()
        for field in candidates:
            label = ((field.get_attribute("name") or "") + " " + (field.get_attribute("id") or "")).lower()
            if any(word in label for word in USERISH):
                user = field
                break
        if user is None:
            user = next((f for f in candidates if (f.get_attribute("type") or "text").lower() in ("text", "email")), None)
        if user is not None:
            user.fill(self.username, timeout=self.left_ms())
        password.fill(self.password, timeout=self.left_ms())
        self.submit(form, fallback_field=password)

    def enter_code(self):
        field = self.page.locator("input[autocomplete=one-time-code]:visible, input[name=j_tokenNumber]:visible").first
        field.fill(self.code, timeout=self.left_ms())
        self.submit(self.form_of(field), fallback_field=field, button_name="_eventId_proceed")

    def answer_consent(self):
        decline = (self.env.get("SAMLH_CONSENT") or "").lower() == "decline"
        form = self.page.locator("form:has([name=_shib_idp_consentIds]), form:has([name=_eventId_AttributeReleaseRejected])").first
        self.submit(form, button_name="_eventId_AttributeReleaseRejected" if decline else "_eventId_proceed")

    def post_saml_form(self):
        form = self.page.locator("form:has([name=SAMLResponse]), form:has([name=SAMLRequest])").first
        self.submit(form)

    # --- the walk -------------------------------------------------------------------------------

    def run(self, start, resource_origin, timeout_s):
        self.timeout_s = timeout_s
        try:
            self.page.goto(start, wait_until="commit", timeout=self.left_ms())
        except self.TimeoutError as error:
            raise Failure("timeout: no answer from %s within %g s (%s)"
                          % (start, timeout_s, str(error).split("\n")[0])) from error
        except self.Error as error:
            raise Failure(explain_net_error(error.message if hasattr(error, "message") else str(error))) from error
        self.settle()
        password_sent = code_sent = consent_sent = False
        for _ in range(MAX_STEPS):
            state = self.look()
            url, status, text = state["url"], state["status"], state["text"] or ""
            if url.startswith("chrome-error://"):
                raise Failure(explain_net_error(self.net_failure or "navigation failed"))
            if status >= 400:
                raise Failure("HTTP %d at %s: %s" % (status, url, snippet(text)), text)
            before = self.navigations
            if state["password"]:
                if password_sent:
                    raise Failure("the IdP refused the password: the login form came back at %s: %s"
                                  % (url, snippet(text)), text)
                password_sent = True
                self.log_in()
                what = "the login form"
            elif state["saml"]:
                # The page posts itself on load; by hand only if it does not.
                if self.wait_navigation(before, SETTLE_S):
                    continue
                self.post_saml_form()
                what = "the SAML auto-post form"
            elif state["code"]:
                if self.code is None:
                    raise Failure("the IdP asks for a one-time code and SAMLH_SECOND_FACTOR_CODE is not set (at %s)"
                                  % url, text)
                if code_sent:
                    raise Failure("the IdP refused the one-time code (at %s): %s" % (url, snippet(text)), text)
                code_sent = True
                self.enter_code()
                what = "the one-time-code form"
            elif state["consent"] and not consent_sent:
                consent_sent = True
                self.answer_consent()
                what = "the consent form"
            elif origin(url) == resource_origin:
                return text, url, status
            else:
                if self.wait_navigation(before, SETTLE_S):
                    continue
                raise Failure("stopped at %s, not the resource's origin (HTTP %s): %s"
                              % (url, status or "?", snippet(text)), text)
            if not self.wait_navigation(before):
                raise Failure("submitting %s at %s led nowhere" % (what, url), text)
        state = self.look()
        raise Failure("the login did not end after %d steps; last page %s: %s"
                      % (MAX_STEPS, state["url"], snippet(state["text"])), state["text"] or "")


def main():
    env = os.environ
    started = time.monotonic()
    result_file = env.get("SAMLH_RESULT_FILE")
    timeout_s = float(env.get("SAMLH_REQUEST_TIMEOUT") or DEFAULT_TIMEOUT)
    start = env.get("SAMLH_START_URL", "")
    idp_initiated = env.get("SAMLH_FLOW") == "web-sso-idp-initiated" and env.get("SAMLH_SP_URL")
    resource_origin = origin(env["SAMLH_SP_URL"] if idp_initiated else start)
    details = {"browser": "", "proxy": env.get("SAMLH_BROWSER_PROXY") or "",
               "spki": env.get("SAMLH_BROWSER_SPKI") or ""}
    result = {"outcome": "failure", "resource": "", "error": "", "details": details}
    walk = None
    try:
        if not start:
            raise Failure("SAMLH_START_URL is not set")
        try:
            from playwright.sync_api import Error as PlaywrightError
            from playwright.sync_api import TimeoutError as PlaywrightTimeout
            from playwright.sync_api import sync_playwright
        except ImportError as error:
            raise Failure("Playwright is not installed (scripts/setup-browser-tests.sh): %s" % error) from error
        with sync_playwright() as playwright:
            try:
                browser = playwright.chromium.launch(executable_path=env.get("SAMLH_CHROMIUM") or CHROMIUM,
                                                     headless=True, timeout=LAUNCH_TIMEOUT_MS,
                                                     args=chromium_args(env))
            except PlaywrightError as error:
                raise Failure("Chromium did not start: %s" % str(error).split("\n")[0]) from error
            try:
                details["browser"] = "chromium " + browser.version
                context = browser.new_context(**context_options(env))
                page = context.new_page()
                walk = Walk(page, env, time.monotonic() + timeout_s, (PlaywrightError, PlaywrightTimeout))
                try:
                    text, url, status = walk.run(start, resource_origin, timeout_s)
                except PlaywrightTimeout as error:
                    raise Failure("timeout: the login did not finish within %g s (at %s): %s"
                                  % (timeout_s, page.url, str(error).split("\n")[0])) from error
                except PlaywrightError as error:
                    message = str(error).split("\n")[0]
                    raise Failure(explain_net_error(message) if "net::" in message
                                  else "browser: %s (at %s)" % (message, page.url)) from error
                result.update(outcome="success", resource=text, error="")
                details.update(final_url=without_query(url), status=str(status))
            finally:
                if walk is not None:
                    details.setdefault("final_url", without_query(walk.page.url))
                browser.close()
    except Failure as failure:
        result.update(outcome="failure", error=str(failure), resource=failure.resource or "")
    except Exception as error:  # noqa: BLE001 - reported, never a traceback without a result
        result.update(outcome="failure", error="%s: %s" % (type(error).__name__, str(error).split("\n")[0]))
    if walk is not None:
        details["pages"] = walk.pages
    details["elapsed"] = "%.2f" % (time.monotonic() - started)
    if result_file:
        with open(result_file, "w", encoding="utf-8") as f:
            json.dump(result, f, ensure_ascii=False)
    if result["outcome"] == "success":
        sys.stderr.write("browser_login_client: success at %s (%d pages, %s s)\n"
                         % (details.get("final_url", ""), len(details.get("pages", [])), details["elapsed"]))
        return 0
    sys.stderr.write("browser_login_client: failure: %s\n" % snippet(result["error"], 300))
    return 1


if __name__ == "__main__":
    sys.exit(main())
