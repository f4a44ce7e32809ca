"""Run-contract wrapper: aws-adfs 2.13.0's `aws-adfs login` command on the adfs-passive flow.

Runs the command in-process, as its console script does (aws_adfs.commands.cli):
    aws-adfs login --adfs-host HOST:PORT --provider-id RP --env --stdout --region us-east-1 --no-session-cache
with the credentials in the `username`/`password` variables (--env), in a fresh HOME (its
~/.aws files and AD FS cookie jar); SAMLH_SECOND_LOGIN=1 runs the same login twice in that HOME,
so the second reuses the AD FS session cookies aws-adfs saved, as a user's second login does.
Adapted, nothing else:
- aws-adfs hard-codes https ('https://{}/adfs/ls/IdpInitiatedSignOn.aspx?loginToRp={}',
  html_roles_fetcher._IDP_ENTRY_URL): the scheme is SAMLH_START_URL's;
- two off-box AWS calls are stubbed: the POST of the SAMLResponse to https://signin.aws.amazon.com/saml
  (account_aliases_fetcher.account_aliases, answers "no aliases") and STS AssumeRoleWithSAML
  (botocore's API call, answers placeholder credentials). The SAMLAssertion aws-adfs hands to STS
  and the role it picked are the resource;
- the user's answer to its role prompt ("Please choose the role you would like to assume",
  shown when the assertion names several roles) is typed on stdin: 0, the first role.
With a Kerberos ticket at hand (a scenario with a realm: the runner's kinit sets KRB5CCNAME and
KRB5_CONFIG), `--sspi` is added, as a user on a domain-joined machine runs it: aws-adfs then
signs in with requests-kerberos (HTTPKerberosAuth, mutual authentication OPTIONAL) and a
WIA-capable user agent instead of posting the password (html_roles_fetcher.py 44-82).
aws-adfs's own messages (stderr) are the error.
"""
import contextlib
import datetime
import io
import os
import sys
import tempfile
import urllib.parse

env = os.environ
os.environ["HOME"] = tempfile.mkdtemp(prefix="aws-adfs-home-")
os.environ["username"], os.environ["password"] = env.get("SAMLH_USERNAME", ""), env.get("SAMLH_PASSWORD", "")
for name in ("AWS_PROFILE", "AWS_CONFIG_FILE", "AWS_SHARED_CREDENTIALS_FILE"):
    os.environ.pop(name, None)

import botocore.client  # noqa: E402
from aws_adfs import account_aliases_fetcher, html_roles_fetcher  # noqa: E402
from aws_adfs.commands import cli  # noqa: E402

from rc_result import report  # noqa: E402

start = urllib.parse.urlsplit(env["SAMLH_START_URL"])
html_roles_fetcher._IDP_ENTRY_URL = start.scheme + "://{}/adfs/ls/IdpInitiatedSignOn.aspx?loginToRp={}"
account_aliases_fetcher.account_aliases = lambda *args, **kwargs: {}
assumed = []
real_api_call = botocore.client.BaseClient._make_api_call


def sts_stub(self, operation, params):
    if operation != "AssumeRoleWithSAML":
        return real_api_call(self, operation, params)
    assumed.append(params)
    return {"Credentials": {"AccessKeyId": "ASIASTUB", "SecretAccessKey": "stub", "SessionToken": "stub",
                            "Expiration": datetime.datetime(2999, 1, 1, tzinfo=datetime.timezone.utc)}}


botocore.client.BaseClient._make_api_call = sts_stub
args = ["login", "--adfs-host", start.netloc, "--provider-id", env.get("SAMLH_ADFS_RELYING_PARTY", "urn:amazon:webservices"),
        "--env", "--stdout", "--region", "us-east-1", "--no-session-cache"]
if env.get("KRB5CCNAME"):
    args.append("--sspi")
if start.scheme == "https" and env.get("SAMLH_CA_FILE"):
    args += ["--adfs-ca-bundle", env["SAMLH_CA_FILE"]]
messages = io.StringIO()
status = 0
for _ in range(2 if env.get("SAMLH_SECOND_LOGIN") == "1" else 1):
    sys.stdin = io.StringIO("0\n")
    with contextlib.redirect_stderr(messages):
        try:
            cli.main(args, prog_name="aws-adfs", standalone_mode=False)
        except SystemExit as stop:
            status = stop.code if isinstance(stop.code, int) else 1
        except Exception as error:  # noqa: BLE001 - click's Abort, a network error…
            status, _ = 1, print("%s: %s" % (type(error).__name__, error), file=sys.stderr)
    if status:
        break
sys.stderr.write(messages.getvalue())
if status == 0 and assumed:
    last = assumed[-1]
    report(True, last["SAMLAssertion"], role_arn=last["RoleArn"], principal_arn=last["PrincipalArn"],
           logins=len(assumed))
report(False, error="aws-adfs login exited %s: %s" % (status, messages.getvalue().strip()[-2000:]))
