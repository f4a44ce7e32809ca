r"""Run-contract wrapper: requests-ntlm 1.3.0 (HttpNtlmAuth, NTLM by pyspnego 0.12.4) over
python-requests 2.34.2, on the http-ntlm flow.

Called as its README shows:
  session = requests.Session()
  session.auth = HttpNtlmAuth("DOMAIN\\username", password)
  session.get(URL)
The user name is `SAMLH_DOMAIN\SAMLH_USERNAME` ("EXAMPLE\alice"), or the UPN as given
("alice@example.org") when SAMLH_DOMAIN is empty; requests-ntlm hands it to pyspnego, which
splits `DOMAIN\user` itself and sends a UPN with an empty domain.
Adapted: nothing. timeout= is SAMLH_REQUEST_TIMEOUT; the test CA (SAMLH_CA_FILE) is `verify`.
No pyspnego option is set (LM_COMPAT_LEVEL is left to its default): what NTLM version it sends,
and how many times it tries, is the library's own. The body is the resource; on an HTTP error
raise_for_status()'s text ("401 Client Error: Unauthorized for url: …") is the error.
"""
import os

import requests
from requests_ntlm import HttpNtlmAuth

from rc_result import failure, report, request_timeout

env = os.environ
user = env.get("SAMLH_USERNAME", "")
domain = env.get("SAMLH_DOMAIN", "")
username = "%s\\%s" % (domain, user) if domain else user
session = requests.Session()
session.auth = HttpNtlmAuth(username, env.get("SAMLH_PASSWORD", ""))
if env.get("SAMLH_CA_FILE"):
    session.verify = env["SAMLH_CA_FILE"]
try:
    response = session.get(env["SAMLH_START_URL"], timeout=request_timeout())
    response.raise_for_status()
    report(True, response.text, status=response.status_code, user=username,
           history=" ".join(str(r.status_code) for r in response.history))
except Exception as error:  # noqa: BLE001
    failure(error, user=username)
