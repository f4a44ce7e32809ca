"""Run-contract wrapper: keystoneauth1 5.18.1's AD FS plugin (`v3adfspassword`,
keystoneauth1.extras._saml2.V3ADFSPassword) on the adfs-wstrust flow.

Called as an OpenStack client does: plugin = V3ADFSPassword(auth_url, identity_provider,
identity_provider_url=AD FS usernamemixed endpoint, service_provider_endpoint,
service_provider_entity_id=AppliesTo, username, password, protocol);
Session(auth=plugin).get_token(). The plugin builds its WS-Trust 1.3 RST (it always asks for a
SAML 1.1 token), posts it to AD FS, parses the RSTR and extracts the token for the SP.
Adapted, because the SP in front of Keystone and Keystone itself are off-box (this flow has no
WS-Federation SP):
- `_send_assertion_to_service_provider` (the POST of wa=wsignin1.0&wresult=… to Shibboleth's
  /Shibboleth.sso/ADFS) and `_access_service_provider` (the GET of Keystone's federated auth URL)
  are stubbed: the wresult the plugin would post is kept as the resource;
- `access.create` (reading Keystone's token JSON) returns a placeholder token.
keystoneauth1's own exception text is the error.
"""
import os
import urllib.parse

from keystoneauth1 import access, session as ks_session
from keystoneauth1.extras import _saml2
from keystoneauth1.extras._saml2.v3 import adfs as adfs_module

from rc_result import failure, report, request_timeout

env = os.environ


class OffBoxKeystone(_saml2.V3ADFSPassword):
    def _send_assertion_to_service_provider(self, session):
        self.presented = urllib.parse.unquote(self.encoded_assertion.split("wresult=", 1)[1])

    def _access_service_provider(self, session):
        self.authenticated_response = None


adfs_module.access.create = lambda resp=None, body=None, auth_token=None: access.AccessInfoV3(
    {"token": {"expires_at": "2999-01-01T00:00:00Z", "methods": ["saml2"]}}, auth_token="keystone-token-stub")
try:
    sp = env.get("SAMLH_SP_URL") or "http://127.0.0.1:1"
    plugin = OffBoxKeystone(auth_url=sp + "/v3", identity_provider="harness-adfs",
                            identity_provider_url=env["SAMLH_ADFS_ENDPOINT"],
                            service_provider_endpoint=sp + "/Shibboleth.sso/ADFS",
                            service_provider_entity_id=env.get("SAMLH_ADFS_APPLIES_TO"),
                            username=env.get("SAMLH_USERNAME", ""), password=env.get("SAMLH_PASSWORD", ""),
                            protocol="saml2")
    session = ks_session.Session(auth=plugin, timeout=request_timeout(),
                                 verify=env.get("SAMLH_CA_FILE") or True)  # https mocks: the test CA
    session.get_token()
    report(True, plugin.presented, presented_to=plugin.service_provider_endpoint)
except Exception as error:  # noqa: BLE001
    failure(error)
