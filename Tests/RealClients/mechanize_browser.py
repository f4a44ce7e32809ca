"""Run-contract wrapper: mechanize 0.4.10, a scripted browser with no SAML knowledge, on the
web-sso, web-sso-idp-initiated, adfs-passive and proxy flows.

A user's clicks, through mechanize's public Browser API: open the start URL, then on each page
fill and submit its first form (the login form: the text field gets the username and the
password field the password; the second-factor form; the consent page, Accept or, when
SAMLH_CONSENT=decline, Reject; AD FS's relying-party choice; the auto-post form, which a browser
without JavaScript submits by its button), until a page has no form. HTTP authentication the
way a browser user answers a dialog: br.add_password for the IdP's and the start URL's
origins; AD FS's relying-party list is enabled as its radio button's onclick script does
(mechanize runs no JavaScript); through a proxy: br.set_proxies + br.add_proxy_password (mechanize's documented proxy
authentication, answering 407). SAMLH_SECOND_LOGIN=1 opens the start URL a second time in the
same browser. Success is what a script checks: the last page is a 200 without a form, back on
the application (the SP; the start URL's site on web-sso and proxy). Adapted: nothing (timeout= is SAMLH_REQUEST_TIMEOUT on each open; robots.txt and
refresh handling off, as for any scripted login). The final page is the resource; on a failure
the error is its status, URL and text, or mechanize's exception.
"""
import os
import urllib.parse

import mechanize

from rc_result import failure, report, request_timeout

env = os.environ
MAX_PAGES = 14


def origin(url):
    parts = urllib.parse.urlsplit(url)
    return "%s://%s/" % (parts.scheme, parts.netloc)


def browser():
    br = mechanize.Browser()
    br.set_handle_robots(False)
    br.set_handle_refresh(False)
    if env.get("SAMLH_CA_FILE"):
        br.set_ca_data(cafile=env["SAMLH_CA_FILE"])
    user, password = env.get("SAMLH_USERNAME", ""), env.get("SAMLH_PASSWORD", "")
    for url in {env["SAMLH_START_URL"], env.get("SAMLH_IDP_ENTITY_ID", "")} - {""}:
        br.add_password(origin(url), user, password)
    if env.get("SAMLH_PROXY_URL"):
        proxy = urllib.parse.urlsplit(env["SAMLH_PROXY_URL"]).netloc
        br.set_proxies({"http": proxy, "https": proxy})
        br.add_proxy_password(env.get("SAMLH_PROXY_USERNAME", ""), env.get("SAMLH_PROXY_PASSWORD", ""))
    return br


def open_(br, request):
    try:
        return br.open(request, timeout=request_timeout())
    except mechanize.HTTPError as error:  # 4xx/5xx pages are answers too
        return error


def login(br):
    response = open_(br, env["SAMLH_START_URL"])
    tried_password = False
    for _ in range(MAX_PAGES):
        forms = list(br.forms()) if response.code == 200 else []
        if not forms:
            break
        br.form = form = forms[0]
        names = [c.name for c in form.controls if c.name]
        passwords = [c for c in form.controls if c.type == "password"]
        texts = [c for c in form.controls if c.type in ("text", "email")]
        if "SAMLResponse" in names:
            response = open_(br, form.click())
        elif passwords and texts:
            if tried_password:
                break  # the login form came back: the password was refused
            tried_password = True
            form[texts[0].name] = env.get("SAMLH_USERNAME", "")
            form[passwords[0].name] = env.get("SAMLH_PASSWORD", "")
            response = open_(br, form.click())
        elif "j_tokenNumber" in names:
            form["j_tokenNumber"] = env.get("SAMLH_SECOND_FACTOR_CODE", "")
            response = open_(br, form.click(name="_eventId_proceed"))
        elif "_eventId_AttributeReleaseRejected" in names or "_shib_idp_consentIds" in names:
            button = "_eventId_AttributeReleaseRejected" if env.get("SAMLH_CONSENT") == "decline" else "_eventId_proceed"
            response = open_(br, form.click(name=button))
        elif "RelyingParty" in names and env.get("SAMLH_ADFS_RELYING_PARTY"):
            form.find_control("SignInOtherSite").items[0].selected = True
            form.find_control("SignInIdpSite").items[0].selected = False
            choice = form.find_control("RelyingParty")
            choice.disabled = False  # what the radio's onclick script does
            for item in choice.items:
                item.disabled = False
            form["RelyingParty"] = [env["SAMLH_ADFS_RELYING_PARTY"]]
            response = open_(br, form.click())
        else:
            break
    return response, bool(list(br.forms())) if response.code == 200 else False


def application_origin():
    """Where the login must land: the SP for IdP-started flows, else the start URL's site."""
    started_at_idp = env.get("SAMLH_FLOW") in ("web-sso-idp-initiated", "adfs-passive")
    return origin(env["SAMLH_SP_URL"] if started_at_idp and env.get("SAMLH_SP_URL") else env["SAMLH_START_URL"])


try:
    br = browser()
    for _ in range(2 if env.get("SAMLH_SECOND_LOGIN") == "1" else 1):
        response, form_left = login(br)
        body = response.get_data().decode("utf-8", "replace")
        if response.code != 200 or form_left:
            break
    ok = response.code == 200 and not form_left and origin(response.geturl()) == application_origin()
    report(ok, body, "HTTP %d %s at %s: %s" % (response.code, getattr(response, "msg", ""), response.geturl(), body[:3000]),
           status=response.code, url=response.geturl())
except Exception as error:  # noqa: BLE001 - a network error, a page mechanize cannot parse
    failure(error)
