#!/usr/bin/env python3
"""Log in through SAML Web SSO with mechanize (a scripted browser that knows nothing of SAML).

Starts at a protected SP URL, follows the redirects to the IdP, fills the login form
(username and password fields found by their type), the second-factor form when asked,
accepts the consent page, submits the auto-post form (mechanize runs no JavaScript, so it
presses the form's submit, as a browser without JavaScript does) and prints the final page.

Output (stdout): one JSON object
  {"url": final URL, "status": HTTP status, "body": final page, "pages": [[url, status], ...]}
Exit 0 when the final page answered 200, 1 otherwise; 2 on bad arguments.
"""
import argparse
import json
import sys

import mechanize


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--start", required=True, help="protected SP URL")
    p.add_argument("--username", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--code", default=None, help="second-factor code, if the IdP asks")
    p.add_argument("--max-pages", type=int, default=12)
    a = p.parse_args(argv)

    br = mechanize.Browser()
    br.set_handle_robots(False)
    br.set_handle_refresh(False)
    pages = []

    def record(response):
        pages.append([response.geturl(), response.code])
        return response

    def open_(request):
        try:
            return record(br.open(request))
        except mechanize.HTTPError as error:  # 4xx/5xx pages are answers too
            return record(error)

    response = open_(a.start)
    for _ in range(a.max_pages):
        html = response.get_data().decode("utf-8", "replace")
        forms = list(br.forms()) if response.code == 200 else []
        if not forms:
            break
        br.form = forms[0]
        names = [c.name for c in br.form.controls if c.name]
        password_controls = [c for c in br.form.controls if c.type == "password"]
        if "SAMLResponse" in names:
            response = open_(br.form.click())
        elif password_controls:
            text = [c for c in br.form.controls if c.type == "text"][0]
            br.form[text.name] = a.username
            br.form[password_controls[0].name] = a.password
            response = open_(br.form.click())
        elif "j_tokenNumber" in names:
            br.form["j_tokenNumber"] = a.code or ""
            response = open_(br.form.click(name="_eventId_proceed"))
        elif "_shib_idp_consentIds" in names or "_eventId_AttributeReleaseRejected" in names:
            response = open_(br.form.click(name="_eventId_proceed"))
        else:
            break
    body = response.get_data().decode("utf-8", "replace")
    json.dump({"url": response.geturl(), "status": response.code, "body": body, "pages": pages}, sys.stdout)
    sys.stdout.write("\n")
    return 0 if response.code == 200 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
