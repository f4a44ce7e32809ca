#!/usr/bin/env python3
"""SAML 2.0 ECP (PAOS), in Python's standard library: a client for `samlharness run`.

1. GET the SP's protected page announcing ECP; the SP answers a PAOS envelope holding an
   AuthnRequest and header blocks (paos:Request responseConsumerURL, ecp:RelayState).
2. POST the envelope, its header blocks removed, to the IdP's SOAP endpoint with HTTP Basic.
3. The IdP answers the Response and ecp:Response AssertionConsumerServiceURL: it must be the
   SP's responseConsumerURL, or the Response (a login for this user) would go somewhere else.
4. POST the Response, byte for byte, with ecp:RelayState to that URL; the SP answers the page.
  samlharness run --client 'python3 examples/python-ecp/client.py' --filter flow:ecp
"""
import base64, http.client, json, os, re, ssl, sys, urllib.error, urllib.request
import xml.etree.ElementTree as ET
from xml.sax.saxutils import escape

env = os.environ
SOAP, PAOS, ECP = ("http://schemas.xmlsoap.org/soap/envelope/", "urn:liberty:paos:2003-08",
                   "urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp")
ANNOUNCE = {"Accept": "text/html; application/vnd.paos+xml", "PAOS": f'ver="{PAOS}";"{ECP}"'}
tls = ssl.create_default_context(cafile=env.get("SAMLH_CA_FILE") or None)  # the test CA, when the mocks speak https
opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(), urllib.request.HTTPSHandler(context=tls))

class Failure(Exception): pass

def call(who, url, body=None, headers={}):
    """GET or POST; the answer's Content-Type and text. A 4xx/5xx answer is a Failure naming `who`."""
    request = urllib.request.Request(url, body and body.encode(), headers)
    try:
        with opener.open(request, timeout=float(env.get("SAMLH_REQUEST_TIMEOUT", "10"))) as answer:
            return answer.headers.get_content_type(), answer.read().decode("utf-8", "replace")
    except urllib.error.HTTPError as error:
        text = error.read().decode("utf-8", "replace")
        fault = re.search(r"<faultstring>(.*?)</faultstring>", text, re.S)  # a SOAP fault says why in a word or two
        words = fault.group(1) if fault else " ".join(re.sub("<[^>]+>", " ", text).split())[:300]  # a page: its text
        raise Failure(f"HTTP {error.code} from the {who}: {words}")

def header_block(envelope, namespace, name, who):
    """A SOAP header block of `envelope` (an element with its attributes and text), or None."""
    try: return ET.fromstring(envelope).find(f"{{{SOAP}}}Header/{{{namespace}}}{name}")
    except ET.ParseError as error: raise Failure(f"the {who}'s answer is not XML: {error}")

def without_header(envelope):
    """The SOAP envelope's text without its Header: the Body keeps its bytes (and the Response its signature)."""
    return re.sub(r"<([\w.-]+:|)Header[\s>].*?</\1Header>", "", envelope, count=1, flags=re.S)

def log_in():
    kind, text = call("SP", env["SAMLH_START_URL"], headers=ANNOUNCE)
    if kind != "application/vnd.paos+xml": raise Failure(f"the SP answered {kind}, not a PAOS request")
    paos_request = header_block(text, PAOS, "Request", "SP")
    if paos_request is None: raise Failure("the SP's PAOS envelope holds no paos:Request")
    consumer_url, relay_state = paos_request.get("responseConsumerURL"), header_block(text, ECP, "RelayState", "SP")
    # The credentials go with the request, to the IdP endpoint the user configured for this.
    basic = base64.b64encode(f'{env["SAMLH_USERNAME"]}:{env["SAMLH_PASSWORD"]}'.encode()).decode()
    _, text = call("IdP", env["SAMLH_IDP_ECP_URL"], without_header(text),
                   {"Content-Type": "text/xml; charset=utf-8", "Authorization": "Basic " + basic})
    response = header_block(text, ECP, "Response", "IdP")
    if response is None: raise Failure("the IdP's answer holds no ecp:Response")
    acs = response.get("AssertionConsumerServiceURL")
    if acs != consumer_url:  # saml-profiles-2.0 §4.2.4.5: stop, tell the user, send nothing
        raise Failure(f"ECP consumer URL mismatch: the IdP says {acs}, the SP asked for {consumer_url}; nothing sent")
    envelope = without_header(text)
    if relay_state is not None:  # back to the SP unchanged, in a header block of our own
        prefix = re.match(r"\s*(?:<\?xml[^>]*\?>\s*)?<([\w.-]+:|)Envelope", envelope).group(1)
        block = (f'<{prefix}Header><ecp:RelayState xmlns:ecp="{ECP}" xmlns:soap="{SOAP}" soap:mustUnderstand="1" '
                 f'soap:actor="http://schemas.xmlsoap.org/soap/actor/next">{escape(relay_state.text or "")}'
                 f'</ecp:RelayState></{prefix}Header>')
        envelope = re.sub(rf"<{prefix}Body[\s>]", lambda m: block + m.group(0), envelope, count=1)
    return call("SP", acs, envelope, {"Content-Type": "application/vnd.paos+xml", **ANNOUNCE})[1]

try:
    result = {"outcome": "success", "resource": log_in()}
except Failure as failure:
    result = {"outcome": "failure", "error": str(failure)}
except (OSError, http.client.HTTPException) as error:  # no answer, a cut connection, a refused certificate
    result = {"outcome": "failure", "error": f"the connection failed: {type(error).__name__}: {error}"}
json.dump(result, open(env["SAMLH_RESULT_FILE"], "w"))
sys.exit(0 if result["outcome"] == "success" else 1)
