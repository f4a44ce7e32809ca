#!/usr/bin/env bash
# Creates (or re-uses) the venv of the pytest plugin's own tests (python/tests/, run by
# python/test.sh): pytest and requests pinned with every dependency, and the plugin itself
# installed the way its users install it, `pip install ./python` (a built wheel, not editable).
#
#   scripts/setup-pytest-plugin.sh
#
#   .venv-pytest-plugin   at the repo root (`.venv*/` is gitignored)
#
# Environment:
#   SAMLH_PYTHON   interpreter used to create the venv (default: python3)
#
# Idempotent: a stamp file in the venv records the pins and a digest of python/ (pyproject.toml
# and src/); when both match and the plugin is registered with pytest, nothing is done. A change
# to the plugin's sources reinstalls it. Prints exactly one line on success; pip's output only
# on failure. The build backend (setuptools) is pinned too: PIP_CONSTRAINT reaches pip's
# isolated build environment.
set -euo pipefail

PINS=(pytest==9.2.0 iniconfig==2.3.1 packaging==26.4 pluggy==1.7.0 Pygments==2.21.0
      requests==2.34.2 urllib3==2.8.0 idna==3.20 charset-normalizer==3.5.3 certifi==2026.10.19.post1)
BUILD_PINS=(setuptools==84.2.1)
STAMP_NAME=.samlh-pytest-plugin-stamp

repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
venv="$repo_root/.venv-pytest-plugin"
python="${SAMLH_PYTHON:-python3}"
export PIP_NO_INPUT=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PYTHONDONTWRITEBYTECODE=1
log="$(mktemp)"
constraints="$(mktemp)"
trap 'rm -f "$log" "$constraints"' EXIT
fail() { cat "$log" >&2; echo "setup-pytest-plugin: FAILED: $*" >&2; exit 1; }

# python3-venv for Debian's own python3 (a pyenv python has venv), only when missing.
if ! "$python" -c 'import venv, ensurepip' 2>/dev/null \
   && ! dpkg-query -W -f='${Status}' python3-venv 2>/dev/null | grep -q "install ok installed"; then
  sudo=""; [[ $(id -u) -ne 0 ]] && sudo="sudo"
  { $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends python3-venv; } \
    >"$log" 2>&1 || fail "apt-get install python3-venv"
fi

digest="$(cd "$repo_root/python" && find pyproject.toml README.md src -type f ! -name '*.pyc' -print0 | LC_ALL=C sort -z \
          | xargs -0 sha256sum | sha256sum | cut -c1-16)"
want="$(printf '%s\n' "${PINS[@]}" "${BUILD_PINS[@]}" "python/ $digest")"
stamp="$venv/$STAMP_NAME"

check() {
  "$venv/bin/python" - <<'PY'
import importlib.metadata as m, pytest, requests, samlharness_pytest  # noqa: F401
points = [e for e in m.entry_points(group="pytest11") if e.name == "samlharness"]
assert points and points[0].value == "samlharness_pytest.plugin", points
assert "site-packages" in samlharness_pytest.__file__, samlharness_pytest.__file__  # installed, not the tree
PY
}

if [[ -x "$venv/bin/python" && -f "$stamp" && "$(cat "$stamp")" == "$want" ]] && (cd / && check) >/dev/null 2>&1; then
  echo "setup-pytest-plugin: up to date: .venv-pytest-plugin (${PINS[0]}, pytest-samlharness $digest)"
  exit 0
fi
action=created
if [[ -x "$venv/bin/python" ]]; then action=updated
else "$python" -m venv "$venv" >"$log" 2>&1 || fail "create venv $venv with $python"; fi
rm -f "$stamp"
printf '%s\n' "${BUILD_PINS[@]}" "${PINS[@]}" >"$constraints"
install=("$venv/bin/python" -m pip install --no-input --quiet)
PIP_CONSTRAINT="$constraints" "${install[@]}" "${PINS[@]}" </dev/null >"$log" 2>&1 || fail "pip install ${PINS[*]}"
# The plugin as users install it; --force-reinstall --no-deps: the same version number with new sources.
build="$(mktemp -d)"; trap 'rm -rf "$log" "$constraints" "$build"' EXIT
cp -r "$repo_root/python/." "$build/"   # a copy: pip would leave build/ and *.egg-info in the tree
PIP_CONSTRAINT="$constraints" "${install[@]}" --force-reinstall --no-deps "$build" </dev/null >"$log" 2>&1 \
  || fail "pip install ./python"
(cd / && check) >"$log" 2>&1 || fail "the plugin is not registered with pytest in $venv"
printf '%s\n' "$want" >"$stamp"
echo "setup-pytest-plugin: $action: .venv-pytest-plugin (${PINS[0]}, pytest-samlharness $digest)"
