"""Run-contract wrapper: pysaml2 7.5.5's ECP client, saml2.ecp_client.Client, on the ecp flow.

Called as its docstring says an application does: Client(user, passwd, sp=URL, metadata_file=...)
then client.get(url, idp_entity_id=...). pysaml2 finds the IdP's SOAP endpoint in the IdP's
metadata, so the wrapper saves the metadata the IdP publishes at its entity ID (Shibboleth's
/idp/shibboleth, SimpleSAMLphp's metadata.php) to a file first, as a deployment does.
TLS: the Client is given the test CA and asked to validate through the two parameters its
docstring documents for that (ca_certs=SAMLH_CA_FILE, disable_ssl_certificate_validation=False), as
an application that wants validation does (pysaml2 then still sends with verify=False: its HTTP
takes config.verify_ssl_cert, which the Client never sets; see Tests/RealClients/verdicts.yaml).
Adapted: nothing else (no timeout: the Client has no parameter for one; pysaml2 prints the SP's
first answer to stdout itself). The page is the resource; pysaml2's exception text the error.
"""
import os
import tempfile
import urllib.request

from saml2.ecp_client import Client

from rc_result import failure, report, request_timeout

env = os.environ
try:
    idp = env["SAMLH_IDP_ENTITY_ID"]
    with tempfile.NamedTemporaryFile("wb", suffix=".xml", delete=False) as f:
        f.write(urllib.request.urlopen(idp, timeout=request_timeout()).read())
    client = Client(env.get("SAMLH_USERNAME", ""), env.get("SAMLH_PASSWORD", ""),
                    sp=env["SAMLH_START_URL"], metadata_file=f.name,
                    ca_certs=env.get("SAMLH_CA_FILE") or "", disable_ssl_certificate_validation=False)
    response = client.get(env["SAMLH_START_URL"], idp_entity_id=idp)
    report(True, response.text, status=response.status_code)
except Exception as error:  # noqa: BLE001
    failure(error)
