"""Run-contract wrapper: ciecplib 0.9.0 (LIGO's CI ECP client library) on the ecp flow.

Called as its documentation shows: ciecplib.get(url, endpoint=ECP_URL, username=...,
password=..., kerberos=False) (a requests-ecp Session with ciecplib's cookie jar). Adapted:
ciecplib takes an endpoint as a URL only when it matches `\\Ahttps://.*/SOAP/ECP\\Z`
(ciecplib/utils.py _ECP_ENDPOINT_REGEX), otherwise it looks the name up in CILogon's IdP list,
which is off-box: the pattern is widened to http too, nothing else (an endpoint that is not
…/SOAP/ECP still goes to the lookup, and fails as it would). timeout= is SAMLH_REQUEST_TIMEOUT.
The page is the resource; ciecplib's exception text the error.
"""
import os
import re

import ciecplib
import ciecplib.utils

from rc_result import failure, report, request_timeout

env = os.environ
ciecplib.utils._ECP_ENDPOINT_REGEX = re.compile(r"\Ahttps?://.*/SOAP/ECP\Z")
try:
    response = ciecplib.get(env["SAMLH_START_URL"], endpoint=env["SAMLH_IDP_ECP_URL"],
                            username=env.get("SAMLH_USERNAME", ""), password=env.get("SAMLH_PASSWORD", ""),
                            kerberos=False, timeout=request_timeout(),
                            verify=env.get("SAMLH_CA_FILE") or True)  # https mocks: the test CA, to requests
    response.raise_for_status()
    report(True, response.text, status=response.status_code, url=response.url)
except Exception as error:  # noqa: BLE001
    failure(error)
