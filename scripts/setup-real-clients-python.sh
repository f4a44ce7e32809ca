#!/usr/bin/env bash
# Creates (or re-uses) the Python venvs of the real-client suite (Tests/RealClients/*.py):
#
#   scripts/setup-real-clients-python.sh
#
#   .venv-real-clients      requests-ecp, pysaml2 (saml2.ecp_client), keystoneauth1[saml2],
#                           python-cas, mechanize, ciecplib, requests (HTTPBasicAuth, HTTPDigestAuth,
#                           HTTPProxyAuth), requests-ntlm (HttpNtlmAuth, NTLM by pyspnego)
#   .venv-real-clients-aws  aws-adfs, alone: aws-adfs 2.13.0 needs fido2<2, which needs
#                           cryptography<45, and pysaml2 7.5.5 needs cryptography>=46.0.5.
#
# Both are at the repo root (`.venv*/` is gitignored). Environment:
#   SAMLH_PYTHON   interpreter used to create the venvs (default: python3)
#
# Every package is pinned, dependencies included; the two sdists aws-adfs pulls in through
# requests-kerberos (gssapi, krb5: no manylinux wheels) are built with pinned build
# requirements (PIP_CONSTRAINT reaches pip's isolated build environment), against Debian's
# libkrb5-dev with gcc and Python's headers (python3-dev, for Debian's own python3: Python.h).
# pysaml2 verifies signatures with the xmlsec1 program.
# The Debian packages are installed only when missing (as scripts/install-deps.sh does).
#
# Idempotent: a stamp file in each venv records its pins; when it matches and the clients
# import, nothing is done. Prints exactly one line on success; pip's output only on failure.
set -euo pipefail

MAIN_PINS=(requests-ecp==0.3.2 pysaml2==7.5.5 keystoneauth1==5.18.1 python-cas==1.7.2
           mechanize==0.4.10 ciecplib==0.9.0 requests==2.34.2 requests-ntlm==1.3.0 pyspnego==0.12.4
           certifi==2026.10.19.post1 cffi==2.1.1 charset-normalizer==3.5.3 cryptography==50.0.2
           defusedxml==0.7.1 elementpath==4.8.0 html5lib==1.1 idna==3.20 iso8601==2.1.0
           lxml==6.1.3 os-service-types==1.9.0 pbr==7.1.3 pycparser==3.12 pyOpenSSL==26.4.0
           python-dateutil==4.0.0 six==1.17.0 stevedore==5.10.0 typing_extensions==4.16.0
           tzdata==2026.6 urllib3==2.8.0 webencodings==0.6.1 xmlschema==2.5.1)
AWS_PINS=(aws-adfs==2.13.0
          boto3==1.44.8 botocore==1.44.8 certifi==2026.10.19.post1 cffi==2.1.1
          charset-normalizer==3.5.3 click==8.5.1 configparser==5.3.0 cryptography==44.0.3
          decorator==5.3.1 fido2==1.2.0 gssapi==1.12.0 idna==3.20 jmespath==1.1.0 krb5==0.10.0
          lxml==5.4.0 pycparser==3.12 pyspnego==0.12.4 python-dateutil==2.9.0.post0
          requests==2.34.2 requests-kerberos==0.14.0 s3transfer==0.19.3 six==1.17.0
          urllib3==2.8.0)
BUILD_PINS=(Cython==3.3.0 setuptools==84.2.1)
DEBIAN=(xmlsec1 libkrb5-dev gcc python3-venv python3-dev)
STAMP_NAME=.samlh-real-clients-stamp

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
python="${SAMLH_PYTHON:-python3}"
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
log="$(mktemp)"
constraints="$(mktemp)"
trap 'rm -f "$log" "$constraints"' EXIT
fail() { cat "$log" >&2; echo "setup-real-clients-python: FAILED: $*" >&2; exit 1; }

# Debian packages, only the missing ones (python3-venv and python3-dev only for Debian's own
# python3: a pyenv python has venv and its headers).
missing=()
for p in "${DEBIAN[@]}"; do
  if [[ $p == python3-venv ]] && "$python" -c 'import venv, ensurepip' 2>/dev/null; then continue; fi
  # Python.h, which the gssapi and krb5 sdists (aws-adfs's requests-kerberos) compile against.
  if [[ $p == python3-dev ]] && "$python" -c 'import os, sys, sysconfig; sys.exit(not os.path.isfile(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' 2>/dev/null; then continue; fi
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"; } \
    >"$log" 2>&1 || fail "apt-get install ${missing[*]}"
fi

check_main() {
  "$1/bin/python" - <<'PY'
import requests, requests.auth, requests_ecp, mechanize, cas, ciecplib  # noqa: F401
import requests_ntlm, spnego  # noqa: F401
import saml2.ecp_client, saml2.sigver  # noqa: F401
import keystoneauth1.session, keystoneauth1.extras._saml2.v3.saml2, keystoneauth1.extras._saml2.v3.adfs  # noqa: F401
assert saml2.sigver.get_xmlsec_binary()
PY
}
check_aws() {
  "$1/bin/python" -c 'import aws_adfs.commands, aws_adfs.html_roles_fetcher, requests_kerberos, boto3'
}

# setup VENV CHECK PINS...: create/update one venv; echoes what it did.
setup() {
  local venv="$repo_root/$1" check="$2"; shift 2
  local pins=("$@") stamp="$venv/$STAMP_NAME"
  local want; want="$(printf '%s\n' "${pins[@]}")"
  if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && "$check" "$venv" >/dev/null 2>&1; then
    echo "up to date"; return
  fi
  local action=created
  if [[ -x "$venv/bin/python" ]]; then action=updated
  else "$python" -m venv "$venv" >"$log" 2>&1 || fail "create venv $venv with $python"; fi
  rm -f "$stamp"
  printf '%s\n' "${BUILD_PINS[@]}" "${pins[@]}" >"$constraints"
  local install=("$venv/bin/python" -m pip install --no-input --quiet)
  PIP_CONSTRAINT="$constraints" "${install[@]}" "${pins[@]}" </dev/null >"$log" 2>&1 \
    || fail "pip install into $venv: ${pins[*]}"
  if ! "$check" "$venv" >"$log" 2>&1; then
    action=repaired   # pinned versions present but damaged: reinstall them
    PIP_CONSTRAINT="$constraints" "${install[@]}" --force-reinstall --no-deps "${pins[@]}" </dev/null >"$log" 2>&1 \
      || fail "pip reinstall into $venv"
    "$check" "$venv" >"$log" 2>&1 || fail "the clients in $venv do not import"
  fi
  printf '%s\n' "$want" >"$stamp"
  echo "$action"
}

main_state="$(setup .venv-real-clients check_main "${MAIN_PINS[@]}")"
aws_state="$(setup .venv-real-clients-aws check_aws "${AWS_PINS[@]}")"
echo "setup-real-clients-python: .venv-real-clients $main_state (${MAIN_PINS[*]:0:7}), .venv-real-clients-aws $aws_state (${AWS_PINS[0]})"
