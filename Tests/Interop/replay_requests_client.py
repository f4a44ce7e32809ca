#!/usr/bin/env python3
"""A walking client for `samlharness run` (docs/running-clients.md): python-requests as a simple
scripted browser, for recorded chains (flow `replay`) and for real products.

It knows nothing of SAML beyond "a form carrying SAMLResponse/SAMLRequest is posted at once":
- GET SAMLH_START_URL, following redirects (requests does, keeping cookies per host);
- parse the answer's HTML forms with html.parser; each form's action is resolved as a Python
  program does it, `urllib.parse.urljoin(page_url, action)`. Note: for `action="?"` (SimpleSAMLphp's
  login form) urljoin KEEPS the page's query (`…/loginuserpass.php?AuthState=…`), where a browser
  (WHATWG URL parsing, RFC 3986 §5.2.2) posts to `…/loginuserpass.php?` with an empty query;
- a form with a password field: the password goes there, SAMLH_USERNAME into the first text/email
  field (or a field named like user/login/email), the other fields are sent as they are; the
  login form coming back a second time (a wrong password) ends the walk: failure;
- a form with a SAMLResponse/SAMLRequest field: submitted as it is (a browser's auto-post);
- no form we know (or not a 200): the walk ends there.
Success: the last answer is 200 and shows no password field. The last page is the resource.

Environment: SAMLH_START_URL, SAMLH_USERNAME, SAMLH_PASSWORD, SAMLH_RESULT_FILE,
SAMLH_REQUEST_TIMEOUT (seconds, default 10), SAMLH_CA_FILE (https mocks). Exit 0 on success,
1 on a reported failure.
"""
import os
import sys
from urllib.parse import urljoin

import requests

import replay_result  # beside this script
from html_forms import forms_of  # beside this script

USERISH = ("user", "login", "email", "mail", "uid", "name", "j_username")


def has_password_field(html):
    return any(f["type"] == "password" for form in forms_of(html) for f in form["fields"])


def form_data(form, username=None, password=None):
    """The (name, value) pairs a browser submits with the form's default button."""
    pairs = []
    text_filled = False
    user_field = None
    if password is not None:
        names = [f for f in form["fields"] if f["name"] and f["type"] in ("text", "email")]
        userish = [f for f in names if any(u in f["name"].lower() for u in USERISH)]
        user_field = (userish or names or [None])[0]
    for f in form["fields"]:
        name, kind = f["name"], f["type"]
        if not name or kind in ("submit", "image", "reset", "file") or kind.startswith("button-"):
            continue
        if kind in ("checkbox", "radio") and not f.get("checked"):
            continue
        value = f["value"] if f["value"] is not None else ""
        if kind == "password" and password is not None:
            value = password
        elif f is user_field and not text_filled:
            value, text_filled = username or "", True
        pairs.append((name, value))
    # The first submit button with a name is sent, as a browser pressing Enter does.
    for f in form["fields"]:
        if f["name"] and f["type"] in ("submit", "button-submit"):
            pairs.append((f["name"], f["value"]))
            break
    return pairs


def walk(start, username, password, timeout, verify=True, max_steps=12):
    session = requests.Session()
    pages = []
    response = session.get(start, timeout=timeout, verify=verify)
    pages.append([response.url, response.status_code])
    logins = 0
    for _ in range(max_steps):
        if response.status_code != 200:
            break
        forms = forms_of(response.text)
        saml = [f for f in forms if {"SAMLResponse", "SAMLRequest"} & {x["name"] for x in f["fields"]}]
        login = [f for f in forms if any(x["type"] == "password" for x in f["fields"])]
        if saml:
            form, pairs = saml[0], form_data(saml[0])
        elif login:
            logins += 1
            if logins > 1:
                break  # the login form came back: a wrong password
            form, pairs = login[0], form_data(login[0], username, password)
        else:
            break
        action = urljoin(response.url, form["action"] or "")
        if form["method"] == "post":
            response = session.post(action, data=pairs, timeout=timeout, verify=verify)
        else:
            response = session.get(action, params=pairs, timeout=timeout, verify=verify)
        pages.append([response.url, response.status_code, "%s %s" % (form["method"].upper(), action)])
    return response, pages


def main():
    env = os.environ
    timeout = float(env.get("SAMLH_REQUEST_TIMEOUT", "10"))
    verify = env.get("SAMLH_CA_FILE") or True
    try:
        response, pages = walk(env["SAMLH_START_URL"], env.get("SAMLH_USERNAME", ""), env.get("SAMLH_PASSWORD", ""),
                               timeout, verify)
        result = replay_result.page_result(response.url, response.status_code, response.text, pages,
                                           has_password_field(response.text))
    except Exception as error:  # noqa: BLE001 - a network error, a page that cannot be read
        result = replay_result.error_result(error)
    return replay_result.write(result, env["SAMLH_RESULT_FILE"])


if __name__ == "__main__":
    sys.exit(main())
