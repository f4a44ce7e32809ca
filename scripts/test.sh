#!/usr/bin/env bash
# The test command: installs what the tests need (idempotently), builds, runs every test.
#   bash scripts/test.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-deps.sh
bash scripts/setup-tls.sh
bash scripts/setup-interop.sh
bash scripts/setup-report-tools.sh
swift build --build-tests
swift test --skip-build
