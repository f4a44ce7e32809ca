#!/usr/bin/env python3
"""A scripted SimplyE-style client of an OPDS circulation manager with SAML login, on requests.

It does what the Library Simplified apps do (SimplyE iOS "SAML support" notes):
  1. reads the Authentication for OPDS document, picks the SAML-2.0 auth type and one IdP's
     `authenticate` link, appends `redirect_uri`;
  2. walks the login like the app's web view: redirects (one hop at a time), the IdP's login
     form, the consent page, the auto-posting SAMLResponse form; it stops at the redirect to
     `redirect_uri` without following it and takes `access_token` (and `patron_info`) from it;
  3. reads the catalog, borrows a book (PUT on the borrow link, Bearer token), reads the
     fulfil link from the loan entry;
  4. fulfils it with the Bearer token and the cookies stored since login, following any
     redirect chain until a response whose Content-Type is a book; a `credentials-invalid`
     problem document (api-problem+json or problem+json) makes it log in again and redo the
     action that failed, once.

Output (stdout): one JSON object
  {"sha256": hex of the book, "content_type": …, "bytes": n, "title": …, "work_url": …,
   "epub_valid": zipfile reads it (EPUBs only), "logins": n, "relogins": n,
   "steps": [[method, url, status], …]}
Exit 0 when a book arrived, 1 otherwise (the JSON then has "error"), 2 on bad arguments.
"""
import argparse
import hashlib
import io
import json
import sys
import xml.etree.ElementTree as ET
import zipfile
from html.parser import HTMLParser
from urllib.parse import parse_qs, urlencode, urljoin, urlsplit

import requests

SAML_AUTH_TYPE = "http://librarysimplified.org/authtype/SAML-2.0"
CREDENTIALS_INVALID = "http://librarysimplified.org/terms/problem/credentials-invalid"
PROBLEM_TYPES = ("application/api-problem+json", "application/problem+json")
BOOK_TYPES = ("application/epub+zip", "application/pdf")
ATOM = "{http://www.w3.org/2005/Atom}"
BORROW_REL = "http://opds-spec.org/acquisition/borrow"
ACQUISITION_REL = "http://opds-spec.org/acquisition"


class Forms(HTMLParser):
    """The forms of a page: action, method, and every input/button (name, value, type)."""

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.forms = []

    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        if tag == "form":
            self.forms.append({"action": a.get("action"), "method": (a.get("method") or "get").lower(), "fields": []})
        elif tag in ("input", "button") and self.forms and a.get("name"):
            self.forms[-1]["fields"].append((a["name"], a.get("value") or "", (a.get("type") or "text").lower(),
                                             "checked" in a))


class ProblemError(Exception):
    def __init__(self, problem, status):
        super().__init__(f"{status} {problem.get('type')}: {problem.get('detail')}")
        self.problem = problem
        self.status = status


class Client:
    def __init__(self, args):
        self.args = args
        self.session = requests.Session()  # keeps every cookie set along the way
        self.token = None
        self.logins = 0
        self.relogins = 0
        self.steps = []

    def send(self, method, url, **kwargs):
        response = self.session.request(method, url, allow_redirects=False, timeout=30, **kwargs)
        self.steps.append([method, url, response.status_code])
        if len(self.steps) > 80:
            raise RuntimeError("more than 80 requests; giving up")
        return response

    def bearer(self):
        return {"Authorization": "Bearer " + self.token}

    # -- login --------------------------------------------------------------------------

    def authenticate_link(self):
        response = self.send("GET", self.args.auth_document)
        response.raise_for_status()
        document = response.json()
        flows = [f for f in document.get("authentication", []) if f.get("type") == SAML_AUTH_TYPE]
        if not flows:
            raise RuntimeError("the authentication document offers no " + SAML_AUTH_TYPE)
        links = [l for l in flows[0].get("links", []) if l.get("rel") == "authenticate"]
        for link in links:
            names = [n.get("value") for n in link.get("display_names", [])]
            if self.args.idp is None or self.args.idp in names or self.args.idp in link.get("href", ""):
                return link["href"]
        raise RuntimeError(f"no authenticate link for IdP {self.args.idp!r}")

    def login(self):
        href = self.authenticate_link()
        url = href + ("&" if "?" in href else "?") + urlencode({"redirect_uri": self.args.redirect_uri})
        response = self.send("GET", url)
        for _ in range(20):
            location = response.headers.get("Location")
            if response.is_redirect and location:
                target = urljoin(response.url, location)
                if target.startswith(self.args.redirect_uri):
                    return self.take_token(target)  # the app intercepts this one; never followed
                response = self.send("GET", target)
                continue
            response = self.fill_page(response)
        raise RuntimeError("the login did not end at redirect_uri")

    def take_token(self, url):
        query = parse_qs(urlsplit(url).query)
        if "error" in query:
            raise RuntimeError("the circulation manager refused the login: " + query["error"][0])
        self.token = query["access_token"][0]
        self.patron_info = json.loads(query.get("patron_info", ["{}"])[0])
        self.logins += 1

    def fill_page(self, response):
        parser = Forms()
        parser.feed(response.text)
        if not parser.forms:
            raise RuntimeError(f"{response.status_code} page without a form at {response.url}: {response.text[:300]}")
        form = parser.forms[0]
        names = [f[0] for f in form["fields"]]
        values, button = [], None
        for name, value, kind, checked in form["fields"]:
            if kind in ("submit", "button"):
                continue
            if kind in ("radio", "checkbox") and not checked:
                continue
            if kind == "password":
                value = self.args.password
            elif name in ("j_username", "username", "UserName"):
                value = self.args.username
            values.append((name, value))
        if "SAMLResponse" not in names:
            # the login form's or the consent page's "proceed" button
            for name, value, kind, _ in form["fields"]:
                if kind == "submit" or name == "_eventId_proceed":
                    if name == "_eventId_proceed" or button is None:
                        button = (name, value)
            if button:
                values.append(button)
        action = urljoin(response.url, form["action"] or response.url)
        if form["method"] == "get":
            return self.send("GET", action + ("&" if "?" in action else "?") + urlencode(values))
        return self.send("POST", action, data=values)

    # -- circulation ----------------------------------------------------------------------

    def with_token(self, action):
        """Runs action(); on credentials-invalid logs in again and redoes it, once."""
        try:
            return action()
        except ProblemError as error:
            if error.problem.get("type") != CREDENTIALS_INVALID:
                raise
            self.relogins += 1
            self.login()
            return action()

    def check(self, response):
        content_type = response.headers.get("Content-Type", "").split(";")[0].strip()
        if content_type in PROBLEM_TYPES:
            raise ProblemError(response.json(), response.status_code)
        return response

    def pick_work(self):
        response = self.check(self.send("GET", self.args.catalog))
        feed = ET.fromstring(response.content)
        for entry in feed.findall(ATOM + "entry"):
            title = entry.findtext(ATOM + "title")
            for link in entry.findall(ATOM + "link"):
                if link.get("rel") == BORROW_REL and (self.args.title is None or self.args.title == title):
                    return title, urljoin(response.url, link.get("href"))
        raise RuntimeError("no borrowable work in the catalog")

    def borrow(self, url):
        response = self.check(self.send("PUT", url, headers=self.bearer()))
        if response.status_code not in (200, 201):
            raise RuntimeError(f"borrow answered {response.status_code}")
        entry = ET.fromstring(response.content)
        for link in entry.iter(ATOM + "link"):
            if link.get("rel") == ACQUISITION_REL:
                return urljoin(response.url, link.get("href"))
        raise RuntimeError("the loan entry has no fulfil link")

    def fulfil(self, url):
        response = self.check(self.send("GET", url, headers=self.bearer()))
        for _ in range(20):
            content_type = response.headers.get("Content-Type", "").split(";")[0].strip()
            if response.status_code == 200 and content_type in BOOK_TYPES:
                return content_type, response.content
            location = response.headers.get("Location")
            if response.is_redirect and location:
                # a web view follows the chain with the stored cookies (and no Bearer header)
                response = self.check(self.send("GET", urljoin(response.url, location)))
                continue
            if content_type.startswith("text/html"):
                response = self.check(self.fill_page(response))  # the IdP wants the user again
                continue
            raise RuntimeError(f"fulfil ended at {response.status_code} {content_type}: {response.text[:300]}")
        raise RuntimeError("the fulfilment chain did not end in a book")


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--auth-document", required=True)
    p.add_argument("--catalog", required=True)
    p.add_argument("--username", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--idp", default=None, help="display name (or entity ID) of the IdP to pick; default the first")
    p.add_argument("--title", default=None, help="the work to borrow; default the first")
    p.add_argument("--redirect-uri", default="simplified-saml20://authenticated")
    a = p.parse_args(argv)
    client = Client(a)
    result = {}
    try:
        client.login()
        title, borrow_url = client.pick_work()
        fulfil_url = client.with_token(lambda: client.borrow(borrow_url))
        content_type, body = client.with_token(lambda: client.fulfil(fulfil_url))
        result = {"sha256": hashlib.sha256(body).hexdigest(), "content_type": content_type, "bytes": len(body),
                  "title": title, "work_url": borrow_url}
        if content_type == "application/epub+zip":
            with zipfile.ZipFile(io.BytesIO(body)) as archive:
                result["epub_valid"] = (archive.testzip() is None and archive.namelist()[0] == "mimetype"
                                        and archive.read("mimetype") == b"application/epub+zip")
        code = 0
    except Exception as error:  # report, never a traceback on stdout
        result = {"error": f"{type(error).__name__}: {error}"}
        code = 1
    result.update({"logins": client.logins, "relogins": client.relogins, "steps": client.steps,
                   "patron_info": getattr(client, "patron_info", None)})
    print(json.dumps(result))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
