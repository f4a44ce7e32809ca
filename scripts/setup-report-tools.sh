#!/usr/bin/env bash
# Installs what the report tests need, idempotently:
#   - a Python venv with the pinned schema validators (jsonschema for SARIF 2.1.0 and
#     report.schema.json, xmlschema for the JUnit XSD), default .build/report-tools;
#   - Debian's `chromium` (headless rendering of the HTML report, scripts/render-html.sh),
#     with apt-get (through sudo when not root) when it is missing.
#
#   bash scripts/setup-report-tools.sh
#
# Environment:
#   SAMLH_REPORT_VENV   venv directory (default: .build/report-tools, relative to the repo
#                       root; an absolute path is used as is)
#   SAMLH_PYTHON        interpreter used to create the venv (default: python3)
#   SAMLH_NO_CHROMIUM=1 do not install Chromium (the HTML rendering test then skips, saying so)
#
# The schemas themselves are committed test data (Tests/HarnessTests/Fixtures/report/, see
# the README there): nothing is fetched at test time.
# Prints one line per tool on success; installer output goes to stderr only on failure.
set -euo pipefail

# jsonschema and its dependencies, xmlschema and its one dependency: exact pins.
PINS=(jsonschema==4.26.0 jsonschema-specifications==2025.9.1 referencing==0.37.0 rpds-py==2026.9.1
      attrs==26.1.0 typing-extensions==4.16.0 xmlschema==4.3.2 elementpath==5.1.4)
STAMP_NAME=.samlh-report-tools-stamp

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="${SAMLH_REPORT_VENV:-.build/report-tools}"
case "$venv" in
  /*) ;;
  *) venv="$repo_root/$venv" ;;
esac
python="${SAMLH_PYTHON:-python3}"
stamp="$venv/$STAMP_NAME"
want_stamp="$(printf '%s\n' "${PINS[@]}")"

export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1

log="$(mktemp)"
trap 'rm -f "$log"' EXIT

check_import() {
  "$venv/bin/python" -c 'import jsonschema, xmlschema; jsonschema.Draft7Validator; xmlschema.XMLSchema10'
}

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want_stamp" ]] && check_import 2>/dev/null; then
  echo "setup-report-tools: validators up to date: $venv"
else
  action="created"
  if [[ -x "$venv/bin/python" ]]; then action="updated"; else
    mkdir -p "$(dirname "$venv")"
    if ! "$python" -m venv "$venv" >"$log" 2>&1; then
      cat "$log" >&2; echo "setup-report-tools: FAILED to create venv $venv with $python" >&2; exit 1
    fi
  fi
  rm -f "$stamp"
  if ! "$venv/bin/python" -m pip install --no-input --quiet "${PINS[@]}" </dev/null >"$log" 2>&1; then
    cat "$log" >&2; echo "setup-report-tools: FAILED: pip install ${PINS[*]} into $venv" >&2; exit 1
  fi
  if ! check_import >"$log" 2>&1; then
    cat "$log" >&2; echo "setup-report-tools: FAILED: import jsonschema, xmlschema in $venv" >&2; exit 1
  fi
  printf '%s\n' "$want_stamp" >"$stamp"
  echo "setup-report-tools: $action $venv with ${PINS[*]}"
fi

# Chromium: Debian's package (the only browser this machine's registries carry).
if command -v chromium >/dev/null 2>&1; then
  echo "setup-report-tools: chromium present: $(chromium --version 2>/dev/null || echo chromium)"
elif [[ "${SAMLH_NO_CHROMIUM:-}" == "1" ]]; then
  echo "setup-report-tools: chromium not installed (SAMLH_NO_CHROMIUM=1)"
else
  as_root=()
  if [[ "$(id -u)" != "0" ]]; then
    if command -v sudo >/dev/null 2>&1; then as_root=(sudo -n); else
      echo "setup-report-tools: FAILED: chromium is missing and this user is not root and has no sudo" >&2; exit 1
    fi
  fi
  export DEBIAN_FRONTEND=noninteractive
  if ! { "${as_root[@]}" apt-get update -q && "${as_root[@]}" apt-get install -y -q --no-install-recommends chromium; } \
       </dev/null >"$log" 2>&1; then
    cat "$log" >&2; echo "setup-report-tools: FAILED: apt-get install chromium" >&2; exit 1
  fi
  echo "setup-report-tools: installed $(chromium --version 2>/dev/null || echo chromium)"
fi
