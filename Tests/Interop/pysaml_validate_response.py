#!/usr/bin/env python3
"""Validate a SAML 2.0 Response with python3-saml's (OneLogin) SP logic.

Acts as an independent SP for interop tests: what the Swift IdP side produces must be
accepted here. Calls OneLogin_Saml2_Response(settings, b64).is_valid(request_data,
request_id) in strict mode. python3-saml checks timestamps against the real clock
(with 300 s of allowed drift on Conditions), so the input must be valid "now".

Run it with the interpreter of the venv made by scripts/setup-interop.sh.
See Tests/Interop/README.md for the full contract.

Output (stdout, one line):
  exit 0  valid: nameid=<NameID> attrs=<JSON object: name -> list of values, keys sorted>
  exit 1  invalid: <python3-saml's error message>
  exit 2  error: <bad arguments / unusable settings / unreadable file>  (stderr)
"""
import argparse
import base64
import json
import sys
import warnings
from urllib.parse import urlsplit

warnings.simplefilter("ignore", DeprecationWarning)  # server_port is "deprecated" in python3-saml

from onelogin.saml2.constants import OneLogin_Saml2_Constants as C  # noqa: E402
from onelogin.saml2.response import OneLogin_Saml2_Response  # noqa: E402
from onelogin.saml2.settings import OneLogin_Saml2_Settings  # noqa: E402


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--idp-cert", required=True, help="PEM certificate the IdP signs with")
    p.add_argument("--idp-entity-id", required=True, help="expected Issuer")
    p.add_argument("--sp-entity-id", required=True, help="expected Audience")
    p.add_argument("--acs-url", required=True,
                   help="URL the response was 'received at' (Destination/Recipient checks)")
    p.add_argument("--request-id", default=None,
                   help="AuthnRequest ID; InResponseTo must match it (unchecked if absent)")
    p.add_argument("--sp-key", default=None, help="PEM private key of the SP (decrypts EncryptedAssertion)")
    p.add_argument("--sp-cert", default=None, help="PEM certificate of the SP")
    p.add_argument("--want-assertions-signed", action="store_true")
    p.add_argument("--want-messages-signed", action="store_true")
    p.add_argument("--want-assertions-encrypted", action="store_true")
    p.add_argument("--reject-deprecated-algorithm", action="store_true",
                   help="reject SHA-1 signature/digest methods (python3-saml's rejectDeprecatedAlgorithm)")
    p.add_argument("file", metavar="FILE",
                   help="the Response: raw XML (or, if it does not start with '<', base64); '-' = stdin")
    return p.parse_args(argv)


def read_text(path):
    with open(path, "r", encoding="ascii") as f:
        return f.read()


def request_data_for(url):
    """request_data that makes python3-saml's 'current URL' equal to url (without query)."""
    u = urlsplit(url)
    if u.scheme not in ("http", "https") or not u.hostname:
        raise ValueError("--acs-url must be an absolute http(s) URL: %r" % url)
    https = u.scheme == "https"
    port = u.port or (443 if https else 80)
    return {
        "https": "on" if https else "off",
        "http_host": u.netloc,  # host[:port] exactly as written in the URL
        "server_port": str(port),
        "script_name": u.path,
        "get_data": {},
        "post_data": {},
    }


def build_settings(a):
    sp = {
        "entityId": a.sp_entity_id,
        "assertionConsumerService": {"url": a.acs_url, "binding": C.BINDING_HTTP_POST},
        "NameIDFormat": C.NAMEID_UNSPECIFIED,
    }
    if a.sp_key:
        sp["privateKey"] = read_text(a.sp_key)
    if a.sp_cert:
        sp["x509cert"] = read_text(a.sp_cert)
    return {
        "strict": True,
        "debug": False,
        "sp": sp,
        "idp": {
            "entityId": a.idp_entity_id,
            # Not used for validating a Response, but python3-saml's settings require it.
            "singleSignOnService": {"url": "https://idp.invalid/sso", "binding": C.BINDING_HTTP_REDIRECT},
            "x509cert": read_text(a.idp_cert),
        },
        "security": {
            "wantAssertionsSigned": a.want_assertions_signed,
            "wantMessagesSigned": a.want_messages_signed,
            "wantAssertionsEncrypted": a.want_assertions_encrypted,
            "rejectDeprecatedAlgorithm": a.reject_deprecated_algorithm,
            "wantNameId": True,
        },
    }


def main(argv):
    a = parse_args(argv)
    try:
        raw = sys.stdin.buffer.read() if a.file == "-" else open(a.file, "rb").read()
        text = raw.strip()
        b64 = base64.b64encode(raw) if text.startswith(b"<") else b"".join(text.split())
        request_data = request_data_for(a.acs_url)
        settings = OneLogin_Saml2_Settings(build_settings(a))
    except Exception as err:  # noqa: BLE001 - anything here is a harness/setup problem
        print("error: %s" % err, file=sys.stderr)
        return 2
    try:
        # The constructor parses the XML and decrypts an EncryptedAssertion; it raises on failure.
        response = OneLogin_Saml2_Response(settings, b64)
        ok = response.is_valid(request_data, a.request_id)
    except Exception as err:  # noqa: BLE001 - python3-saml reports some failures by raising
        print("invalid: %s" % (str(err) or type(err).__name__))
        return 1
    if not ok:
        print("invalid: %s" % response.get_error())
        return 1
    attrs = response.get_attributes()
    print("valid: nameid=%s attrs=%s" % (response.get_nameid(),
                                          json.dumps(attrs, sort_keys=True, ensure_ascii=False)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
