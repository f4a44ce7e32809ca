#!/usr/bin/env python3
"""A client under test for `samlharness run`: CAS REST login, validated by python-cas.

python-requests gets a TGT (POST /cas/v1/tickets) and a service ticket for SAMLH_CAS_SERVICE;
python-cas (CASClientV3) validates it at /p3/serviceValidate. The raw validation response is
the resource; python-cas's parsed user decides success. Writes {"outcome", "error",
"resource"} to SAMLH_RESULT_FILE.
"""
import json
import os
import sys

import requests
from cas import CASClient

env = os.environ
result = {"outcome": "failure"}
try:
    cas_url = env["SAMLH_CAS_URL"].rstrip("/") + "/cas/"
    session = requests.Session()
    session.verify = env.get("SAMLH_CA_FILE") or True  # the https mocks' test CA (docs/tls.md)
    tgt = session.post(env["SAMLH_START_URL"], data={"username": env.get("SAMLH_USERNAME", ""),
                                                     "password": env.get("SAMLH_PASSWORD", "")},
                       allow_redirects=False, timeout=10)
    if tgt.status_code != 201:
        raise RuntimeError("TGT refused: HTTP %d %s" % (tgt.status_code, tgt.text[:300]))
    st = session.post(tgt.headers["Location"], data={"service": env["SAMLH_CAS_SERVICE"]},
                      allow_redirects=False, timeout=10)
    if st.status_code != 200:
        raise RuntimeError("service ticket refused: HTTP %d %s" % (st.status_code, st.text[:300]))
    client = CASClient(version=3, server_url=cas_url, service_url=env["SAMLH_CAS_SERVICE"],
                       verify_ssl_certificate=session.verify)  # python-cas hands it to requests' verify=
    raw = client.get_verification_response(st.text.strip())
    raw = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else raw
    user, attributes, _ = client.verify_response(raw)
    result = {"outcome": "success" if user else "failure", "resource": raw,
              "error": "" if user else "validation failed: " + raw[:500]}
except Exception as error:  # noqa: BLE001 - every failure is reported
    result = {"outcome": "failure", "error": "%s: %s" % (type(error).__name__, error)}
with open(env["SAMLH_RESULT_FILE"], "w") as f:
    json.dump(result, f)
sys.exit(0 if result["outcome"] == "success" else 1)
