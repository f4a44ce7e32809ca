#!/usr/bin/env bash
# The full measurement of docs/performance.md, in one run: release build, the peer IdP
# (SimpleSAMLphp, scripts/setup-peer-idp.sh), then `samlharness bench` with every section.
#
#   scripts/bench.sh [--no-peer] [--no-catalog] [--out FILE]   (default FILE: .build/bench.json)
#
# Builds through the shared build lock when /tmp/samlh-build.lock is in use on this machine.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
cd "$ROOT"
PEER=1
CATALOG=1
OUT="$ROOT/.build/bench.json"
while [ $# -gt 0 ]; do
    case "$1" in
        --no-peer) PEER=0; shift ;;
        --no-catalog) CATALOG=0; shift ;;
        --out) OUT="$2"; shift 2 ;;
        -h|--help) sed -n 2,8p "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done
# shellcheck source=lib/build.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/build.sh"
build() { if command -v flock >/dev/null; then flock /tmp/samlh-build.lock swift build "${SAMLH_RELEASE_FLAGS[@]}" --product "$1"; else release_build --product "$1"; fi; }
build samlharness
build samlh-reference-client     # the catalog's reference client, beside samlharness
ARGS=(--seconds 3 --login-seconds 5 --startup-runs 7 --json-out "$OUT")
if [ "$PEER" = 1 ]; then
    scripts/setup-peer-idp.sh
    ARGS+=(--peer simplesamlphp)
fi
if [ "$CATALOG" = 1 ]; then ARGS+=(--catalog); fi
exec .build/release/samlharness bench "${ARGS[@]}"
