#!/usr/bin/env bash
# Issue 25's measurement in one run: complete IdP-leg logins per second (AuthnRequest → login
# form → POST → auto-post form with the SAMLResponse) of the mock IdP against the real
# SimpleSAMLphp 1.19 under `php -S`, by the team's compiled libcurl client (login-bench, in
# ../shared/bench/ when it exists, else this repository's copy in scripts/bench/), rounds
# alternating A B A B A B (ratio.sh). Beside the ratio it prints each server's own CPU per login,
# read from /proc (utime + stime of every process of the server: php -S and its workers), and
# `openssl speed rsa2048` from the same minutes.
#
#   scripts/bench-ratio.sh [--profile simplesamlphp|shibboleth] [--logins N] [--concurrency C]
#                          [--rounds R] [--php-workers W] [--bin PATH]
#
#   --profile      the mock IdP's personality (default simplesamlphp: Response and Assertion both
#                  signed, as SimpleSAMLphp signs them; shibboleth: the Response unsigned, the
#                  Assertion signed, a consent page after the password)
#   --logins       per round (default 1000)       --concurrency  (default 4)
#   --rounds       per side (default 3)           --php-workers  PHP_CLI_SERVER_WORKERS (default 4)
#   --bin          the samlharness binary (default .build/release/samlharness; built when missing)
#
# Both IdPs trust the SP urn:bench:sp with ACS http://127.0.0.1:8083/acs (nothing listens there:
# the IdP leg ends at the auto-post form). Everything is on 127.0.0.1; every round is bounded
# (login-bench --max-seconds 60). Needs apt once (simplesamlphp, php-cli, libcurl4-openssl-dev).
# The last line is ratio.sh's: `ratio A/B = X` (A the mock, B SimpleSAMLphp).
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
PROFILE=simplesamlphp N=1000 C=4 ROUNDS=3 WORKERS=4 BIN="$ROOT/.build/release/samlharness"
while [ $# -gt 0 ]; do
    case "$1" in
        --profile) PROFILE="$2"; shift 2 ;;
        --logins) N="$2"; shift 2 ;;
        --concurrency) C="$2"; shift 2 ;;
        --rounds) ROUNDS="$2"; shift 2 ;;
        --php-workers) WORKERS="$2"; shift 2 ;;
        --bin) BIN="$2"; shift 2 ;;
        *) echo "bench-ratio: unknown argument $1 (see the header of $0)" >&2; exit 2 ;;
    esac
done
WORK="$ROOT/.build/bench-ratio"
mkdir -p "$WORK"
# shellcheck source=bench/common.sh
. "$ROOT/scripts/bench/common.sh"
# shellcheck source=lib/ports.sh
. "$ROOT/scripts/lib/ports.sh"
bench_client
# shellcheck source=lib/build.sh
. "$ROOT/scripts/lib/build.sh"
[ -x "$BIN" ] || (cd "$ROOT" && release_build --product samlharness >&2)
write_bench_sp "$WORK/bench-sp.xml"
bash "$ROOT/scripts/setup-peer-idp.sh" --dir "$WORK/ssp" --sp-metadata "$WORK/bench-sp.xml" >/dev/null

PIDS=()
cleanup() { for p in "${PIDS[@]}"; do kill -- "-$p" 2>/dev/null || kill "$p" 2>/dev/null || true; done; }
trap cleanup EXIT

PHP_PORT="$(free_port)"
SIMPLESAMLPHP_CONFIG_DIR="$WORK/ssp/config" PHP_CLI_SERVER_WORKERS="$WORKERS" \
    setsid php -S "127.0.0.1:$PHP_PORT" -t "$WORK/ssp/docroot" >"$WORK/php.log" 2>&1 </dev/null &
PHP_PID=$!; PIDS+=("$PHP_PID")
SSP_META="http://127.0.0.1:$PHP_PORT/simplesaml/saml2/idp/metadata.php"

SAMLH_MOCKIDP_DIR="$ROOT/MockIdP" setsid "$BIN" serve --profile "$PROFILE" --sp-metadata "$WORK/bench-sp.xml" --no-console \
    >"$WORK/serve.out" 2>"$WORK/serve.err" </dev/null &
MOCK_PID=$!; PIDS+=("$MOCK_PID")
for _ in $(seq 1 200); do [ -s "$WORK/serve.out" ] && break; kill -0 "$MOCK_PID" 2>/dev/null || break; sleep 0.05; done
MOCK_META="$(python3 -c 'import json,sys; print(json.loads(open(sys.argv[1]).readline())["idp"]["metadata"])' "$WORK/serve.out")" \
    || { echo "bench-ratio: serve did not start:" >&2; cat "$WORK/serve.err" >&2; exit 1; }
for _ in $(seq 1 200); do curl -fsS "$SSP_META" -o /dev/null 2>/dev/null && break; sleep 0.05; done
curl -fsS "$SSP_META" -o /dev/null || { echo "bench-ratio: SimpleSAMLphp did not answer:" >&2; tail "$WORK/php.log" >&2; exit 1; }

# CPU seconds (utime + stime, clock ticks) of every process in a process group.
group_cpu() {
    local total=0 pid
    for pid in $(pgrep -g "$1" 2>/dev/null); do
        total=$(( total + $(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo 0) ))
    done
    echo "$total"
}
PEER_USER="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["username"])' "$WORK/ssp/peer.json")"
PEER_PASS="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["password"])' "$WORK/ssp/peer.json")"
MOCK_USER=alice
MOCK_PASS='correct horse+battery=staple&100% Ünïcødé'

echo "bench-ratio: client $LB; mock $("$BIN" --version 2>/dev/null || echo "$BIN") profile $PROFILE; peer SimpleSAMLphp $(dpkg-query -W -f='${Version}' simplesamlphp 2>/dev/null) php -S workers $WORKERS"
echo "openssl speed (same run): $(openssl speed -seconds 2 rsa2048 2>/dev/null | grep '^rsa 2048' || echo n/a)"
M0=$(group_cpu "$MOCK_PID"); P0=$(group_cpu "$PHP_PID")
set +e
BENCH_USER_A="$MOCK_USER" BENCH_PASS_A="$MOCK_PASS" BENCH_USER_B="$PEER_USER" BENCH_PASS_B="$PEER_PASS" ROUNDS="$ROUNDS" \
    bash "$BENCH/ratio.sh" "$MOCK_META" "$SSP_META" "$N" "$C" | tee "$WORK/ratio.txt"
RC=${PIPESTATUS[0]}
set -e
M1=$(group_cpu "$MOCK_PID"); P1=$(group_cpu "$PHP_PID")
WARM=20
python3 - "$M0" "$M1" "$P0" "$P1" "$ROUNDS" "$N" "$WARM" "$(getconf CLK_TCK)" <<'PY'
import sys
m0, m1, p0, p1, rounds, n, warm, hz = map(int, sys.argv[1:])
logins = rounds * (n + warm) + 1   # + the smoke login
for label, a, b in (("mock IdP", m0, m1), ("SimpleSAMLphp", p0, p1)):
    print("%s server CPU: %.2f s for %d logins = %.3f ms per login" % (label, (b - a) / hz, logins, 1000.0 * (b - a) / hz / logins))
PY
# ratio.sh's last line last, as it promises.
tail -n 1 "$WORK/ratio.txt"
exit "$RC"
