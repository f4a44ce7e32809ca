#!/usr/bin/env python3
"""Get a token from AD FS's usernamemixed endpoint with MSAL for Python's own WS-Trust code.

MSAL (msal 1.39.0) implements the AD FS part of its username/password flow in three small
modules, used here unmodified and without Azure AD:

* msal.mex.send_request / msal.mex.Mex — GET the mex document, pick the usernamemixed
  endpoint from its WSDL and WS-Policy;
* msal.wstrust_request.send_request — build the SOAP 1.2 RST (WS-Addressing, wsu:Timestamp,
  UsernameToken), POST it, and hand the answer to
* msal.wstrust_response.parse_response — the token and its type, or the SOAP fault's
  reason and subcode as a RuntimeError.

Output (stdout): one JSON object
  {"mex_endpoint": MSAL's pick from the mex as served (null: MSAL keeps https endpoints only),
   "mex_endpoint_if_https": its pick when the same mex names https addresses,
   "token_type": ..., "token": the assertion XML as MSAL returns it}
or, when AD FS answered a fault, {"error": "WsTrust server returned error in RSTR: {'reason': …, 'code': …}"}.
Exit 0 with a token, 1 with a fault, 2 on bad arguments.
"""
import argparse
import json
import sys

import requests
from msal import mex, wstrust_request


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--mex", required=True, help="the mex URL")
    p.add_argument("--endpoint", required=True, help="the usernamemixed URL to post to")
    p.add_argument("--username", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--applies-to", required=True, help="the relying party identifier (MSAL's cloud_audience_urn)")
    a = p.parse_args(argv)

    session = requests.Session()
    result = {}
    result["mex_endpoint"] = mex.send_request(a.mex, session)
    text = session.get(a.mex).text
    base = a.mex.split("/adfs/")[0]
    https_base = "https://" + base.split("://", 1)[1]
    result["mex_endpoint_if_https"] = mex.Mex(text.replace(base, https_base)).get_wstrust_username_password_endpoint()
    try:
        token = wstrust_request.send_request(a.username, a.password, a.applies_to, a.endpoint, None, session)
    except RuntimeError as error:
        # parse_response raises "WsTrust server returned error in RSTR: {'reason': …, 'code': …}"
        # (the dict is wstrust_response.parse_error of the SOAP fault).
        result["error"] = str(error)
        json.dump(result, sys.stdout)
        sys.stdout.write("\n")
        return 1
    result["token_type"] = token["type"]
    result["token"] = token["token"].decode("utf-8")
    json.dump(result, sys.stdout)
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
