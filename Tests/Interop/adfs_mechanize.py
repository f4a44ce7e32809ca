#!/usr/bin/env python3
"""Sign in through AD FS's passive pages with mechanize (a scripted browser without JavaScript).

Starts at IdpInitiatedSignOn.aspx (or any AD FS URL), picks the relying party on the sign-on
page when asked (--rp), fills the forms sign-in (the UserName and Password fields, found by
name as AD FS names them; AD FS's "Sign in" is a script-driven span, so the form is submitted
without a button, as Enter does), follows AD FS's redirect, submits the auto-post form to the
relying party's ACS and prints the final page.

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
    p.add_argument("--start", required=True, help="an AD FS URL, e.g. …/adfs/ls/IdpInitiatedSignOn.aspx?loginToRp=…")
    p.add_argument("--username", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--rp", default=None, help="relying party to choose on the sign-on page")
    p.add_argument("--max-pages", type=int, default=10)
    a = p.parse_args(argv)

    br = mechanize.Browser()
    br.set_handle_robots(False)
    br.set_handle_refresh(False)
    pages = []

    def open_(request):
        try:
            response = br.open(request)
        except mechanize.HTTPError as error:  # 4xx/5xx pages are answers too
            response = error
        pages.append([response.geturl(), response.code])
        return response

    response = open_(a.start)
    tried_password = False
    for _ in range(a.max_pages):
        forms = list(br.forms()) if response.code == 200 else []
        if not forms:
            break
        br.form = forms[0]
        names = [c.name for c in br.form.controls if c.name]
        if "SAMLResponse" in names:
            response = open_(br.form.click())
        elif "UserName" in names and "Password" in names:
            if tried_password:
                break  # the password was refused: the page came back with the error text
            tried_password = True
            br.form["UserName"] = a.username
            br.form["Password"] = a.password
            response = open_(br.form.click())
        elif "RelyingParty" in names and a.rp:
            br.form.find_control("SignInOtherSite").items[0].selected = True
            br.form.find_control("SignInIdpSite").items[0].selected = False
            # Real AD FS disables the drop-down until "another site" is chosen (its script
            # enables it in a browser); a mechanize user of a real farm enables it by hand.
            control = br.form.find_control("RelyingParty")
            control.disabled = False
            for item in control.items:
                item.disabled = False
            br.form["RelyingParty"] = [a.rp]
            response = open_(br.form.click())
        else:
            break
    body = response.get_data().decode("utf-8", "replace")
    json.dump({"url": response.geturl(), "status": response.code, "body": body, "pages": pages}, sys.stdout)
    sys.stdout.write("\n")
    return 0 if response.code == 200 else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
