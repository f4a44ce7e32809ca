#!/usr/bin/env python3
"""A walking client for `samlharness run` (docs/running-clients.md): python-mechanize, a scripted
browser without JavaScript, for recorded chains (flow `replay`) and for real products.

Unlike websso_mechanize.py (whose callers decide success by the harness's `/secure` path), it
decides by the page: it starts at SAMLH_START_URL, follows redirects, and on each 200 page takes
the first form it knows —
- a form with a SAMLResponse/SAMLRequest field: pressed as it is (the noscript button of an
  auto-posting form, what a browser without JavaScript does);
- a form with a password field: SAMLH_USERNAME into its first text field, SAMLH_PASSWORD into the
  password field, submitted; the login form coming back a second time (a wrong password) ends the
  walk;
— and stops on a page with no such form. Like urllib.parse.urljoin (replay_requests_client.py),
mechanize 0.4.10 resolves `action="?"` (SimpleSAMLphp's login form) to the page's URL WITH its
query (`…/loginuserpass.php?AuthState=…`), where Chromium posts to `…/loginuserpass.php?` (seen
against the real SimpleSAMLphp 1.19 by scripts/record-real-chains.sh check-clients).
Success: the last answer is 200 and shows no password field. The last page is the resource.

Environment: SAMLH_START_URL, SAMLH_USERNAME, SAMLH_PASSWORD, SAMLH_RESULT_FILE,
SAMLH_REQUEST_TIMEOUT (seconds, default 10). Exit 0 on success, 1 on a reported failure.
"""
import os
import sys

import mechanize

import replay_result  # beside this script


def walk(start, username, password, timeout, max_steps=12):
    br = mechanize.Browser()
    br.set_handle_robots(False)
    br.set_handle_refresh(False)
    pages = []

    def open_(request):
        try:
            response = br.open(request, timeout=timeout)
        except mechanize.HTTPError as error:  # 4xx/5xx pages are answers too
            response = error
        pages.append([response.geturl(), response.code])
        return response

    response = open_(start)
    logins = 0
    for _ in range(max_steps):
        if response.code != 200:
            break
        try:
            forms = list(br.forms())
        except mechanize.BrowserStateError:  # not HTML
            break
        saml = [f for f in forms if {"SAMLResponse", "SAMLRequest"} & {c.name for c in f.controls if c.name}]
        login = [f for f in forms if any(c.type == "password" for c in f.controls)]
        if saml:
            br.form = saml[0]
        elif login:
            logins += 1
            if logins > 1:
                break  # the login form came back: a wrong password
            br.form = login[0]
            texts = [c for c in br.form.controls if c.type in ("text", "email") and not c.readonly]
            if texts:
                br.form[texts[0].name] = username
            br.form[[c for c in br.form.controls if c.type == "password"][0].name] = password
        else:
            break
        request = br.form.click()
        pages.append(["%s %s" % (request.get_method(), request.get_full_url())])
        response = open_(request)
    return response, pages


def has_password_field(br_html):
    return 'type="password"' in br_html or "type='password'" in br_html or "type=password" in br_html


def main():
    env = os.environ
    timeout = float(env.get("SAMLH_REQUEST_TIMEOUT", "10"))
    try:
        response, pages = walk(env["SAMLH_START_URL"], env.get("SAMLH_USERNAME", ""), env.get("SAMLH_PASSWORD", ""), timeout)
        body = response.get_data().decode("utf-8", "replace")
        result = replay_result.page_result(response.geturl(), response.code, body, pages, has_password_field(body))
    except Exception as error:  # noqa: BLE001 - a network error, a page mechanize cannot parse
        result = replay_result.error_result(error)
    return replay_result.write(result, env["SAMLH_RESULT_FILE"])


if __name__ == "__main__":
    sys.exit(main())
