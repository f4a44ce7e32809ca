"""A Web SSO client on `requests` (as examples/python-websso/client.py does it on urllib), as
a function of the run contract's values, with switches for the bugs the tests plant.

    log_in(env) -> {"outcome": "success"|"failure", "resource": …, "error": …}

From the SP's protected page: requests follows the redirects and keeps the cookies; fill the
IdP's login form, answer its consent page, post the auto-submitting SAMLResponse form back to
the SP, report the page it ends on.
"""
from html.parser import HTMLParser
from urllib.parse import urljoin, urlsplit

import requests


class Page(HTMLParser):
    """A page's forms: (action, method, [(type, name, value)]), and its words."""

    def __init__(self, html):
        super().__init__()
        self.forms, self.words = [], []
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        a = {k: v or "" for k, v in attrs}
        if tag == "form":
            self.forms.append((a.get("action", ""), a.get("method", "get").lower(), []))
        elif tag in ("input", "button") and self.forms and "name" in a:
            kind = a.get("type", "submit" if tag == "button" else "text").lower()
            self.forms[-1][2].append((kind, a["name"], a.get("value", "")))

    def handle_data(self, data):
        self.words += data.split()


def _encode_raw(fields):
    """The planted bug: a form body joined without percent-encoding (`+` `=` `&` `%` as typed)."""
    return "&".join(f"{name}={value}" for name, value in fields)


def log_in(env, *, percent_encode=True, claim_success=False):
    """`percent_encode=False`: form bodies go out raw. `claim_success=True`: whatever page the
    login ends on is reported as success (a client that takes error pages for success)."""
    timeout = float(env.get("SAMLH_REQUEST_TIMEOUT") or 10)
    sp = urlsplit(env.get("SAMLH_SP_URL") or env["SAMLH_START_URL"])[:2]
    with requests.Session() as session:
        session.trust_env = False  # no proxy from the environment: the mocks are on loopback
        answer = session.get(env["SAMLH_START_URL"], timeout=timeout)
        sent = None
        for _ in range(10):
            page = Page(answer.text)
            form = page.forms[0] if page.forms and answer.status_code == 200 else ("", "", [])
            names = {name: kind for kind, name, _ in form[2]}
            first = lambda *kinds: next((n for n, k in names.items() if k in kinds), None)  # noqa: E731
            if "SAMLResponse" in names:
                step, values, button = "response", {}, None
            elif first("password"):
                if sent == "password":
                    return {"outcome": "failure", "error": "the IdP refused the password"}
                step, values, button = "password", {first("text", "email"): env["SAMLH_USERNAME"],
                                                    first("password"): env["SAMLH_PASSWORD"]}, first("submit")
            elif "_eventId_AttributeReleaseRejected" in names:
                step, values, button = "consent", {}, "_eventId_proceed"
            else:
                break
            action, method, inputs = form
            fields = [(name, values.get(name, value)) for kind, name, value in inputs
                      if kind not in ("submit", "checkbox", "radio") or name == button]
            target = urljoin(answer.url, action)
            body = fields if percent_encode else _encode_raw(fields)
            headers = {} if percent_encode else {"Content-Type": "application/x-www-form-urlencoded"}
            answer = session.post(target, data=body, headers=headers, timeout=timeout)
            sent = step
        ended_at_sp = urlsplit(answer.url)[:2] == sp
        if claim_success or (answer.status_code == 200 and ended_at_sp):
            return {"outcome": "success", "resource": answer.text}
        words = " ".join(Page(answer.text).words)[:300]
        return {"outcome": "failure", "error": f"the login ended with HTTP {answer.status_code} at {answer.url}: {words}"}
