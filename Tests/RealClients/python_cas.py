"""Run-contract wrapper: python-cas 1.7.2, the CAS ticket validator behind django-cas-ng and
flask-cas-ng, on the cas-rest flow.

python-cas is the service's half of CAS: it validates a ticket. The user's half, the CAS REST
login, has no python-cas API, so it is done with python-requests as CAS's REST protocol says:
POST username/password to /cas/v1/tickets -> 201 with the TGT in Location; POST service= to the
TGT -> the service ticket. python-cas is then called as an application calls it:
CASClient(version=3, server_url=CAS/cas/, service_url=SERVICE).get_verification_response(ticket)
and .verify_response(answer) (the two halves of its verify_ticket, public, so that the raw
validation answer can be the resource), V=3: SAMLH_CAS_VALIDATE_URL is always /cas/p3/serviceValidate.
Not on cas-browser: there the mock's own application is the service and validates the ticket.
Not on cas-rest.tls-cas-* (Tests/RealClients/suite.yaml): the login above, the wrapper's, meets the
CAS's certificate before python-cas does, so the verdict would be the wrapper's.
Adapted: nothing. timeout= is SAMLH_REQUEST_TIMEOUT on the REST calls (python-cas has none).
python-cas is given the test CA as an application gives it: verify_ssl_certificate, which its
session.get passes to requests as verify= (cas.py 215-218).
"""
import os

import requests
from cas import CASClient

from rc_result import failure, report, request_timeout

env = os.environ
try:
    http = requests.Session()
    http.verify = env.get("SAMLH_CA_FILE") or True  # https mocks: the test CA
    tgt = http.post(env["SAMLH_START_URL"], data={"username": env.get("SAMLH_USERNAME", ""),
                                                 "password": env.get("SAMLH_PASSWORD", "")},
                    allow_redirects=False, timeout=request_timeout())
    tgt.raise_for_status()
    if tgt.status_code != 201 or "Location" not in tgt.headers:
        raise RuntimeError("no TGT: HTTP %d %s" % (tgt.status_code, tgt.text[:500]))
    ticket = http.post(tgt.headers["Location"], data={"service": env["SAMLH_CAS_SERVICE"]},
                       allow_redirects=False, timeout=request_timeout())
    ticket.raise_for_status()
    client = CASClient(version=3, server_url=env["SAMLH_CAS_URL"].rstrip("/") + "/cas/",
                       service_url=env["SAMLH_CAS_SERVICE"], verify_ssl_certificate=http.verify)
    answer = client.get_verification_response(ticket.text.strip())
    answer = answer.decode("utf-8", "replace") if isinstance(answer, bytes) else answer
    user, attributes, _ = client.verify_response(answer)
    report(bool(user), answer, "python-cas found no user in the validation answer: " + answer[:2000],
           user=user, attributes=attributes)
except Exception as error:  # noqa: BLE001
    failure(error)
