#!/usr/bin/env bash
# The pytest plugin's own tests (python/tests/), in the pinned venv of
# scripts/setup-pytest-plugin.sh, with the plugin installed as users install it (pip install ./python).
#
#   bash python/test.sh [PYTEST ARGS…]
#
# SAMLH_BIN: the samlharness under test (default: .build/debug/samlharness, the test command's build).
# The tests start real `samlharness serve` and `samlharness run` processes and log in through them
# with a requests client; about 10 s.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/setup-pytest-plugin.sh
export SAMLH_BIN="${SAMLH_BIN:-$PWD/.build/debug/samlharness}"
# From python/ (its pytest.ini), not the repository root; the installed plugin, not the source tree.
cd python
exec ../.venv-pytest-plugin/bin/python -m pytest -p no:cacheprovider "$@"
