#!/usr/bin/env bash
# Installs the Debian packages SAMLHarness needs, only those missing (idempotent).
#   libxml2-dev, libxmlsec1-dev, libxmlsec1-openssl  headers and libraries for CXMLSec
#   zlib1g-dev                                       raw DEFLATE for the Redirect binding
#   libcurl4-openssl-dev                             -lcurl: the release link of samlh-reference-client (static Foundation)
#   libkrb5-dev                                      MIT GSS-API for CGSSAPI: the mocks accept Negotiate/Kerberos
#   pkg-config                                       SwiftPM finds xmlsec1-openssl through it
#   xmlsec1                                          the CLI the tests cross-check signatures with
#   python3-venv                                     the python3-saml interop venv
#   openssl                                          `samlharness bench` baseline
#   curl                                             the HTTP client the Basic/Digest/proxy tests drive
#   ca-certificates                                  update-ca-certificates, for scripts/setup-tls.sh
#   time                                             /usr/bin/time: HostileCorpusTests read each case's peak memory (GNU time -f %M)
#   iproute2                                         `ip netns`: scripts/security-check.sh's two network namespaces
set -euo pipefail
packages=(libxml2-dev libxmlsec1-dev libxmlsec1-openssl zlib1g-dev libcurl4-openssl-dev libkrb5-dev pkg-config xmlsec1 python3-venv openssl curl ca-certificates time iproute2)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
# python3-venv is only needed when the python3 on PATH is Debian's; a pyenv python has venv.
if ((${#missing[@]})) && python3 -c 'import venv, ensurepip' 2>/dev/null; then
  keep=()
  for p in "${missing[@]}"; do [[ "$p" == python3-venv ]] || keep+=("$p"); done
  missing=("${keep[@]+"${keep[@]}"}")
fi
if ((${#missing[@]} == 0)); then
  echo "install-deps: all Debian packages present"
  exit 0
fi
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi
echo "install-deps: installing ${missing[*]}"
$sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
