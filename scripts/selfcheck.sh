#!/usr/bin/env bash
# The main job: installs what it needs (idempotently), builds, and runs the self-check,
# writing its report to Reports/selfcheck/.
#   bash scripts/selfcheck.sh
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-deps.sh
# shellcheck source=lib/build.sh
. scripts/lib/build.sh
release_build --product samlharness
.build/release/samlharness selfcheck --report-dir Reports/selfcheck "$@"
