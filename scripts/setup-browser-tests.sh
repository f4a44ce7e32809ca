#!/usr/bin/env bash
# Creates (or re-uses) what the browser checks of the live console need
# (Tests/Interop/console_browser_check.py):
#
#   scripts/setup-browser-tests.sh
#
#   /usr/bin/chromium   Debian's chromium, installed with apt only when missing (sudo unless root)
#   .venv-browser       Playwright (PyPI, pinned below with its one dependency), installed with
#                       PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1: it drives /usr/bin/chromium through
#                       `executable_path`, and no browser is ever downloaded
#
# The venv is at the repo root (`.venv*/` is gitignored). Environment:
#   SAMLH_PYTHON   interpreter used to create the venv (default: python3)
#
# PLAYWRIGHT_VERSION is the one scripts/record-real-chains.sh pins for .venv-record: keep them
# equal. Idempotent: when chromium is there, the venv's pins match its stamp and Playwright
# imports, nothing is done. Prints exactly one line on success; apt's and pip's output only on
# failure.
set -euo pipefail

PLAYWRIGHT_VERSION=1.65.2
PINS=("playwright==$PLAYWRIGHT_VERSION" greenlet==3.5.6)
CHROMIUM=/usr/bin/chromium
VENV_NAME=.venv-browser
STAMP_NAME=.samlh-browser-stamp

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo_root/$VENV_NAME"
stamp="$venv/$STAMP_NAME"
python="${SAMLH_PYTHON:-python3}"
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
fail() { cat "$log" >&2; echo "setup-browser-tests: FAILED: $*" >&2; exit 1; }

# Debian's chromium, only when missing.
chromium_state="present"
if [[ ! -x $CHROMIUM ]]; then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends chromium; } \
    >"$log" 2>&1 || fail "apt-get install chromium"
  [[ -x $CHROMIUM ]] || fail "apt-get installed chromium, but there is no $CHROMIUM"
  chromium_state="installed"
fi
chromium_version="$(dpkg-query -W -f='${Version}' chromium 2>/dev/null || echo "?")"

check() {
  "$venv/bin/python" - "$PLAYWRIGHT_VERSION" <<'PY'
import sys
from importlib.metadata import version
import playwright.sync_api  # noqa: F401
sys.exit(version("playwright") != sys.argv[1])
PY
}

want="$(printf '%s\n' "${PINS[@]}")"
if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && check >/dev/null 2>&1; then
  venv_state="up to date"
else
  venv_state=created
  if [[ -x "$venv/bin/python" ]]; then venv_state=updated
  else "$python" -m venv "$venv" >"$log" 2>&1 || fail "create venv $venv with $python"; fi
  rm -f "$stamp"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$venv/bin/python" -m pip install --no-input --quiet "${PINS[@]}" \
    </dev/null >"$log" 2>&1 || fail "pip install into $venv: ${PINS[*]}"
  check >"$log" 2>&1 || fail "Playwright $PLAYWRIGHT_VERSION does not import in $venv"
  printf '%s\n' "$want" >"$stamp"
fi

echo "setup-browser-tests: chromium $chromium_version $chromium_state ($CHROMIUM), $VENV_NAME $venv_state (${PINS[*]})"
