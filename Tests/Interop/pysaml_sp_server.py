#!/usr/bin/env python3
"""A minimal SP built on python3-saml (OneLogin), for `samlharness attack-sp` to attack.

Listens on 127.0.0.1 (port 0 by default: an ephemeral port), prints ONE line with the port
number on stdout as soon as it accepts connections, then serves until killed. Everything
else it says goes to stderr.

  POST <acs-path>   form field SAMLResponse (and RelayState, ignored): validated with
                    OneLogin_Saml2_Response(settings, b64).is_valid(request_data) in strict
                    mode, IdP-initiated (no request ID), against --idp-cert only.
                    200 "WELCOME <nameid>" on success, 403 "REJECTED: <error>" otherwise.
  anything else     404

It is as minimal as python3-saml's own examples: python3-saml's settings at their defaults
(no wantAssertionsSigned, rejectDeprecatedAlgorithm off, …) and no replay cache (python3-saml
leaves remembering assertion IDs to the application). What `attack-sp` finds is therefore
what an application gets from python3-saml's defaults.

Run it with the interpreter of the venv made by scripts/setup-interop.sh.
"""
import argparse
import html
import sys
import warnings
from http.server import BaseHTTPRequestHandler, HTTPServer
from urllib.parse import parse_qs

warnings.simplefilter("ignore", DeprecationWarning)  # server_port is "deprecated" in python3-saml

from onelogin.saml2.constants import OneLogin_Saml2_Constants as C  # noqa: E402
from onelogin.saml2.response import OneLogin_Saml2_Response  # noqa: E402
from onelogin.saml2.settings import OneLogin_Saml2_Settings  # noqa: E402

MAX_BODY = 2 * 1024 * 1024


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--idp-cert", required=True, help="PEM certificate the IdP signs with (the only one trusted)")
    p.add_argument("--idp-entity-id", required=True, help="expected Issuer")
    p.add_argument("--sp-entity-id", required=True, help="this SP's entityID (expected Audience)")
    p.add_argument("--acs-path", default="/acs", help="path of the HTTP-POST ACS")
    p.add_argument("--port", type=int, default=0)
    return p.parse_args(argv)


def settings_for(a, acs_url):
    with open(a.idp_cert, "r", encoding="ascii") as f:
        cert = f.read()
    return OneLogin_Saml2_Settings({
        "strict": True,
        "debug": False,
        "sp": {
            "entityId": a.sp_entity_id,
            "assertionConsumerService": {"url": acs_url, "binding": C.BINDING_HTTP_POST},
            "NameIDFormat": C.NAMEID_UNSPECIFIED,
        },
        "idp": {
            "entityId": a.idp_entity_id,
            # Not used to validate a Response, but python3-saml's settings require it.
            "singleSignOnService": {"url": "https://idp.invalid/sso", "binding": C.BINDING_HTTP_REDIRECT},
            "x509cert": cert,
        },
    })


def make_handler(a, port):
    acs_url = "http://127.0.0.1:%d%s" % (port, a.acs_path)
    settings = settings_for(a, acs_url)

    class Handler(BaseHTTPRequestHandler):
        def log_message(self, fmt, *args):  # noqa: N802 - http.server's name
            sys.stderr.write("pysaml-sp: " + (fmt % args) + "\n")

        def answer(self, status, text):
            sys.stderr.write("pysaml-sp: %d %s\n" % (status, text))
            body = ("<!DOCTYPE html><html><body><p>%s</p></body></html>\n" % html.escape(text)).encode("utf-8")
            self.send_response(status)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def do_GET(self):  # noqa: N802
            self.answer(404, "not found")

        def do_POST(self):  # noqa: N802
            if self.path.split("?")[0] != a.acs_path:
                return self.answer(404, "not found")
            length = int(self.headers.get("Content-Length") or 0)
            if length <= 0 or length > MAX_BODY:
                return self.answer(413 if length > MAX_BODY else 400, "REJECTED: body of %d bytes" % length)
            form = parse_qs(self.rfile.read(length).decode("latin-1"))
            b64 = (form.get("SAMLResponse") or [""])[0]
            if not b64:
                return self.answer(400, "REJECTED: no SAMLResponse")
            request_data = {
                "https": "off",
                "http_host": "127.0.0.1:%d" % port,
                "server_port": str(port),
                "script_name": a.acs_path,
                "get_data": {},
                "post_data": {"SAMLResponse": b64},
            }
            try:
                response = OneLogin_Saml2_Response(settings, b64)
                ok = response.is_valid(request_data)
            except Exception as err:  # noqa: BLE001 - python3-saml reports some failures by raising
                return self.answer(403, "REJECTED: %s" % (str(err) or type(err).__name__))
            if not ok:
                return self.answer(403, "REJECTED: %s" % response.get_error())
            return self.answer(200, "WELCOME %s" % response.get_nameid())

    return Handler


def main(argv):
    a = parse_args(argv)
    server = HTTPServer(("127.0.0.1", a.port), BaseHTTPRequestHandler)
    port = server.server_address[1]
    try:
        server.RequestHandlerClass = make_handler(a, port)
    except Exception as err:  # noqa: BLE001 - unusable settings or certificate
        print("error: %s" % err, file=sys.stderr)
        return 2
    # Listening already (bound and listening in the constructor): the port line is the ready line.
    print(port, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
