"""Run-contract wrapper: keystoneauth1 5.18.1's SAML2 ECP plugin (`v3samlpassword`,
keystoneauth1.extras._saml2.V3Saml2Password) on the ecp flow.

Called as an OpenStack client does: plugin = V3Saml2Password(auth_url, identity_provider,
protocol, identity_provider_url=ECP_URL, username, password); Session(auth=plugin).get_token().
Adapted, because Keystone is off-box:
- the plugin's `federated_token_url` (Keystone's /v3/OS-FEDERATION/.../auth, which Keystone puts
  behind mod_shib) is the SP's protected page, SAMLH_START_URL: the plugin runs its whole ECP
  conversation against the mock SP and IdP exactly as it would in front of Keystone;
- the final Keystone step, turning that page into a token (`access.create`, which reads
  Keystone's JSON and X-Subject-Token), is stubbed: the page the SP served is kept as the
  resource and a placeholder token goes back to the plugin.
keystoneauth1's own exception text is the error.
"""
import os

from keystoneauth1 import access, session as ks_session
from keystoneauth1.extras import _saml2
from keystoneauth1.extras._saml2.v3 import saml2 as saml2_module

from rc_result import failure, report, request_timeout

env = os.environ
pages = []


def keystone_token_stub(resp=None, body=None, auth_token=None):
    """Stands in for Keystone's token answer: keeps the SP's page, returns a placeholder token."""
    pages.append(resp)
    return access.AccessInfoV3({"token": {"expires_at": "2999-01-01T00:00:00Z", "methods": ["saml2"]}},
                               auth_token="keystone-token-stub")


class OffBoxKeystone(_saml2.V3Saml2Password):
    @property
    def federated_token_url(self):
        return env["SAMLH_START_URL"]


saml2_module.access.create = keystone_token_stub  # the module's `access` is keystoneauth1.access
try:
    plugin = OffBoxKeystone(auth_url=env.get("SAMLH_SP_URL", "") + "/v3", identity_provider="harness-idp",
                            protocol="saml2", identity_provider_url=env["SAMLH_IDP_ECP_URL"],
                            username=env.get("SAMLH_USERNAME", ""), password=env.get("SAMLH_PASSWORD", ""))
    session = ks_session.Session(auth=plugin, timeout=request_timeout(),
                                 verify=env.get("SAMLH_CA_FILE") or True)  # https mocks: the test CA
    session.get_token()
    page = pages[-1]
    report(True, page.text, status=page.status_code, url=page.url)
except Exception as error:  # noqa: BLE001
    failure(error)
