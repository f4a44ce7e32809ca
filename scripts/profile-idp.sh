#!/usr/bin/env bash
# The profile of docs/performance.md ("Issue 25"): the release `serve` under `perf record`
# (DWARF call graphs) while the team's compiled client (../shared/bench/login-bench, else
# scripts/bench/) runs IdP-leg logins at concurrency 4; then the samples charged to phases by
# scripts/perf-phases.py, scaled to the server's CPU per login read from /proc in a second,
# unprofiled run.
#
#   scripts/profile-idp.sh [--profile simplesamlphp|shibboleth] [--logins N] [--bin PATH] [--out DIR]
#
# Needs `perf` (linux-perf) and permission to profile (root, or perf_event_paranoid ≤ 1).
# Everything on 127.0.0.1; each run bounded (login-bench --max-seconds 60).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PROFILE=simplesamlphp N=2500 BIN="$ROOT/.build/release/samlharness" OUT="$ROOT/.build/profile-idp"
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) PROFILE="$2"; shift 2 ;;
        --logins) N="$2"; shift 2 ;;
        --bin) BIN="$2"; shift 2 ;;
        --out) OUT="$2"; shift 2 ;;
        *) echo "profile-idp: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
    esac
done
command -v perf >/dev/null || { echo "profile-idp: perf is not installed (apt-get install linux-perf)" >&2; exit 1; }
# shellcheck source=bench/common.sh
. "$ROOT/scripts/bench/common.sh"
bench_client
# shellcheck source=lib/build.sh
. "$ROOT/scripts/lib/build.sh"
[ -x "$BIN" ] || (cd "$ROOT" && release_build --product samlharness >&2)
mkdir -p "$OUT"
write_bench_sp "$OUT/bench-sp.xml"
PASS='correct horse+battery=staple&100% Ünïcødé'

# serve_and_run PERF(0|1): starts serve, N logins (+20 warm-up), prints "CPU_TICKS LOGINS".
serve_and_run() {
    SAMLH_MOCKIDP_DIR="$ROOT/MockIdP" "$BIN" serve --profile "$PROFILE" --sp-metadata "$OUT/bench-sp.xml" --no-console \
        > "$OUT/serve.out" 2> "$OUT/serve.err" < /dev/null &
    local pid=$!
    for _ in $(seq 1 200); do [ -s "$OUT/serve.out" ] && break; sleep 0.05; done
    local meta; meta="$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["idp"]["metadata"])' "$OUT/serve.out")"
    python3 "$MAKE_URL" "$meta" --count $((N + 220)) > "$OUT/urls.txt"
    "$LB" --sso-url-file "$OUT/urls.txt" --user alice --password "$PASS" --n 200 --concurrency 4 --max-seconds 60 > /dev/null
    local perf_pid="" t0 t1
    if [ "$1" = 1 ]; then
        perf record -F 999 --call-graph dwarf,16384 -p "$pid" -o "$OUT/perf.data" > "$OUT/perf.log" 2>&1 &
        perf_pid=$!
        sleep 0.5
    fi
    t0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    "$LB" --sso-url-file "$OUT/urls.txt" --user alice --password "$PASS" --n "$N" --concurrency 4 --warmup 20 \
        --max-seconds 60 --json > "$OUT/run.json"
    t1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
    if [ -n "$perf_pid" ]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
    kill "$pid"; wait "$pid" 2>/dev/null || true
    echo "$((t1 - t0)) $((N + 20))"
}
read -r ticks logins < <(serve_and_run 0)
MS=$(python3 -c "import sys; print('%.3f' % (1000.0 * $ticks / $(getconf CLK_TCK) / $logins))")
echo "profile-idp: $PROFILE, server CPU per login (unprofiled run): $MS ms"
serve_and_run 1 > /dev/null
perf script -i "$OUT/perf.data" -F comm,tid,ip,sym,dso 2>/dev/null | swift demangle --simplified > "$OUT/perf.txt"
python3 "$ROOT/scripts/perf-phases.py" "$OUT/perf.txt" "$MS"
