"""Run-contract wrapper: python-requests 2.34.2's auth classes on the http-basic, http-digest and
proxy flows.

Called as its documentation shows:
  http-basic   requests.get(URL, auth=requests.auth.HTTPBasicAuth(user, password))
  http-digest  requests.get(URL, auth=requests.auth.HTTPDigestAuth(user, password))
  proxy        requests.get(URL, auth=HTTPBasicAuth(user, password),
                            proxies={"http": "http://PUSER:PPASS@proxy:port"})  (credentials
               percent-encoded in the proxy URL, as requests' "Proxies" docs show; requests
               sends them as Proxy-Authorization: Basic)
HTTPProxyAuth is not used: a request takes one `auth`, so it cannot answer the origin's 401 too.
Adapted: nothing. timeout= is SAMLH_REQUEST_TIMEOUT. The body is the resource; on an HTTP
error raise_for_status()'s text ("401 Client Error: Unauthorized for url: …") is the error.
"""
import os
import urllib.parse

import requests
from requests.auth import HTTPBasicAuth, HTTPDigestAuth

from rc_result import failure, report, request_timeout

env = os.environ
flow = env.get("SAMLH_FLOW", "")
auth_class = HTTPDigestAuth if flow == "http-digest" else HTTPBasicAuth
kwargs = {"auth": auth_class(env.get("SAMLH_USERNAME", ""), env.get("SAMLH_PASSWORD", "")),
          "timeout": request_timeout()}
if flow == "proxy":
    proxy = urllib.parse.urlsplit(env["SAMLH_PROXY_URL"])
    quote = lambda value: urllib.parse.quote(value, safe="")  # noqa: E731
    url = "%s://%s:%s@%s" % (proxy.scheme, quote(env.get("SAMLH_PROXY_USERNAME", "")),
                             quote(env.get("SAMLH_PROXY_PASSWORD", "")), proxy.netloc)
    kwargs["proxies"] = {"http": url, "https": url}
if env.get("SAMLH_CA_FILE"):
    kwargs["verify"] = env["SAMLH_CA_FILE"]
try:
    response = requests.get(env["SAMLH_START_URL"], **kwargs)
    response.raise_for_status()
    report(True, response.text, status=response.status_code, auth=auth_class.__name__)
except Exception as error:  # noqa: BLE001
    failure(error)
