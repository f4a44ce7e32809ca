#!/usr/bin/env bash
# Load script (not a test): 1,000 concurrent Web SSO logins through the mocks on loopback
# (login form + consent + auto-post + /secure, 8 requests each), then checks that every
# login got its own secret and the traffic log holds every exchange. Prints p50/p99 login
# latency and logins/s; writes Reports/load/websso.json.
#
#   bash scripts/load-websso.sh [--logins N] [--concurrency N] [--profile NAME]
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
bash scripts/install-deps.sh >/dev/null
# shellcheck source=lib/build.sh
. scripts/lib/build.sh
release_build --product samlharness >/dev/null
mkdir -p Reports/load
exec .build/release/samlharness load --logins 1000 --concurrency 1000 --json-out Reports/load/load.json "$@"
