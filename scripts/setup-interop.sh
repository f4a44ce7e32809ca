#!/usr/bin/env bash
# Creates (or re-uses) the Python venv used by the interop tests in Tests/Interop/.
#
#   scripts/setup-interop.sh
#
# Environment:
#   SAMLH_INTEROP_VENV  venv directory (default: .venv-interop, relative to the repo root;
#                       an absolute path is used as is)
#   SAMLH_PYTHON        interpreter used to create the venv (default: python3)
#
# Idempotent: a stamp file inside the venv records the pins it was built with; when the
# stamp matches and `import onelogin.saml2.response` works, nothing is installed.
# Prints exactly one line on success (to stdout); pip output goes to stderr only on failure.
set -euo pipefail

# lxml and xmlsec must bundle the SAME libxml2 (both 6.1.3 / 1.3.17 wheels carry 2.14.6);
# otherwise `import xmlsec` fails with "lxml & xmlsec libxml2 library version mismatch".
# Both are forced to binary wheels: an sdist build would link the system libxml2 instead.
# saml_ecp_demo (an ECP client) and mechanize (a scripted browser) are the third-party
# clients the mock-server tests drive; requests and its dependencies are pinned with them.
# msal (Microsoft's auth library) is the WS-Trust client the AD FS tests drive; python-cas
# the CAS client that validates tickets with CAS 2, CAS 3 and SAML 1.1.
PINS=(lxml==6.1.3 xmlsec==1.3.17 python3-saml==1.16.0 isodate==0.7.2
      saml_ecp_demo==0.4 requests==2.34.2 urllib3==2.8.0 idna==3.20 charset-normalizer==3.5.2
      certifi==2026.10.18 mechanize==0.4.10 html5lib==1.1 six==1.17.0 webencodings==0.6.1
      msal==1.39.0 PyJWT==2.15.1 cryptography==50.0.2 cffi==2.1.1 pycparser==3.12
      python-cas==1.7.2)
STAMP_NAME=.samlh-interop-stamp

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${SAMLH_INTEROP_VENV:-.venv-interop}"
case "$venv" in
  /*) ;;
  *) venv="$repo_root/$venv" ;;
esac
python="${SAMLH_PYTHON:-python3}"
stamp="$venv/$STAMP_NAME"
want_stamp="$(printf '%s\n' "${PINS[@]}")"

export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

check_import() {
  "$venv/bin/python" - <<'PY'
import lxml.etree, xmlsec
import onelogin.saml2.response  # noqa: F401  (fails if the libxml2 versions differ)
import mechanize, saml_ecp_demo  # noqa: F401
import msal.wstrust_request, msal.mex  # noqa: F401
import cas  # noqa: F401  (python-cas)
assert lxml.etree.LIBXML_VERSION == xmlsec.get_libxml_version(), (lxml.etree.LIBXML_VERSION, xmlsec.get_libxml_version())
PY
}

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want_stamp" ]] \
   && check_import 2>/dev/null; then
  echo "setup-interop: up to date: $venv (${PINS[*]})"
  exit 0
fi

log="$(mktemp)"
trap 'rm -f "$log"' EXIT
action="created"
if [[ -x "$venv/bin/python" ]]; then action="updated"; else
  if ! "$python" -m venv "$venv" >"$log" 2>&1; then
    cat "$log" >&2; echo "setup-interop: FAILED to create venv $venv with $python" >&2; exit 1
  fi
fi
rm -f "$stamp"
pip_install() {
  "$venv/bin/python" -m pip install --no-input --quiet --only-binary=lxml,xmlsec "$@" "${PINS[@]}" \
    </dev/null >"$log" 2>&1 || { cat "$log" >&2; echo "setup-interop: FAILED: pip install ${PINS[*]} into $venv" >&2; exit 1; }
}
pip_install
if ! check_import >"$log" 2>&1; then
  # Pinned versions present but the files are damaged (or were replaced): reinstall them.
  action="repaired"
  pip_install --force-reinstall --no-deps
  if ! check_import >"$log" 2>&1; then
    cat "$log" >&2; echo "setup-interop: FAILED: import onelogin.saml2.response in $venv" >&2; exit 1
  fi
fi
printf '%s\n' "$want_stamp" >"$stamp"
echo "setup-interop: $action $venv and installed ${PINS[*]}"
