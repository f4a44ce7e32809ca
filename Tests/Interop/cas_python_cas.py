#!/usr/bin/env python3
"""Validate CAS service tickets with python-cas (a third-party CAS client library).

Logs in through the CAS REST protocol with python-requests (python-cas has no REST client):
POST /cas/v1/tickets (username, password) -> TGT URL in Location; POST that URL (service)
-> a service ticket. Then, for each protocol version asked, it takes a fresh ticket and has
python-cas validate it (CASClient(version=...).verify_ticket), then validates the same
ticket again (a service ticket is single-use, so the second answer must name no user).

Versions: 1 (/validate), 2 (/serviceValidate), 3 (/p3/serviceValidate),
CAS_2_SAML_1_0 (/samlValidate).

Output (stdout): one JSON object
  {"tgt": TGT URL, "results": {VERSION: {"ticket": ST, "user": ..., "attributes": ...,
   "pgtiou": ..., "second_user": ...}}, "logout_status": HTTP status of DELETE TGT}
Exit 0 when every version named a user on the first validation, 1 otherwise, 2 on bad
arguments or a REST failure.
"""
import argparse
import json
import sys

import requests
from cas import CASClient


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--cas", required=True, help="CAS server URL, ending in /cas/")
    p.add_argument("--service", required=True, help="the service URL tickets are for")
    p.add_argument("--validate-service", default=None,
                   help="the service python-cas names at validation (default: --service)")
    p.add_argument("--username", required=True)
    p.add_argument("--password", required=True)
    p.add_argument("--versions", default="2,3", help="comma-separated: 1,2,3,CAS_2_SAML_1_0")
    a = p.parse_args(argv)

    session = requests.Session()
    tickets_url = a.cas.rstrip("/") + "/v1/tickets"
    r = session.post(tickets_url, data={"username": a.username, "password": a.password},
                     allow_redirects=False)
    if r.status_code != 201 or "Location" not in r.headers:
        json.dump({"error": "TGT not created", "status": r.status_code, "body": r.text}, sys.stdout)
        return 2
    tgt_url = r.headers["Location"]

    results = {}
    ok = True
    for version in a.versions.split(","):
        st = session.post(tgt_url, data={"service": a.service}, allow_redirects=False)
        if st.status_code != 200:
            json.dump({"error": "ST not issued", "status": st.status_code, "body": st.text}, sys.stdout)
            return 2
        ticket = st.text.strip()
        client = CASClient(version=version if not version.isdigit() else int(version),
                           server_url=a.cas, service_url=a.validate_service or a.service)
        user, attributes, pgtiou = client.verify_ticket(ticket)
        second_user, _, _ = client.verify_ticket(ticket)
        results[version] = {"ticket": ticket, "user": user, "attributes": attributes,
                            "pgtiou": pgtiou, "second_user": second_user}
        ok = ok and user is not None

    logout = session.delete(tgt_url)
    json.dump({"tgt": tgt_url, "results": results, "logout_status": logout.status_code},
              sys.stdout, ensure_ascii=False)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
