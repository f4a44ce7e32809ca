#!/usr/bin/env bash
# The main job: installs what it needs (idempotently), builds, and runs the whole
# conformance catalog against the built-in Swift reference client, writing the results to
# Reports/catalog/ (results.jsonl: one line per scenario as it finishes).
#   bash scripts/run-catalog.sh [extra samlharness run options, e.g. --filter tag:ecp]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-deps.sh
bash scripts/setup-tls.sh
# shellcheck source=lib/build.sh
. scripts/lib/build.sh
release_build
# The reference client honours SAMLH_REQUEST_TIMEOUT: the deliberate waits run at a tenth
# (docs/running-clients.md). Pass --time-scale 1 for the real clock.
.build/release/samlharness run --builtin reference --jobs 2 --time-scale 0.1 --report-dir Reports/catalog "$@"
