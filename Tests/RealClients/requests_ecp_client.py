"""Run-contract wrapper: requests-ecp 0.3.2 (Cardiff University / LIGO), the ECP auth plugin for
python-requests, on the ecp flow.

Called as its README shows an application using it:
    with requests_ecp.Session(idp=ECP_URL, username=..., password=...) as s: s.get(URL).raise_for_status()
Adapted: nothing but `timeout=` (SAMLH_REQUEST_TIMEOUT; requests-ecp passes it to each of its requests)
and `session.verify` = SAMLH_CA_FILE, the https mocks' test CA (requests' own knob).
The page's body is the resource; the library's exception text is the error.
"""
import os

import requests_ecp

from rc_result import failure, report, request_timeout

env = os.environ
try:
    with requests_ecp.Session(idp=env["SAMLH_IDP_ECP_URL"], username=env.get("SAMLH_USERNAME", ""),
                              password=env.get("SAMLH_PASSWORD", "")) as session:
        session.verify = env.get("SAMLH_CA_FILE") or True  # https mocks: the test CA (requests' own knob)
        response = session.get(env["SAMLH_START_URL"], timeout=request_timeout())
        response.raise_for_status()
    report(True, response.text, status=response.status_code, url=response.url)
except Exception as error:  # noqa: BLE001 - every failure is reported with the library's text
    failure(error)
