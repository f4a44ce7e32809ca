#!/usr/bin/env bash
# The security suite of issue 36 (docs/security.md, "The security suite"): `serve --host 0.0.0.0`
# as docs/devices.md runs it for a phone on Wi-Fi, and `record --listen 0.0.0.0:0`, attacked
# from a second host — two network namespaces of the suite's own joined by a veth pair, traffic
# never leaving them — and, in headless Chromium, a cross-site page (CSRF) and a rebound name.
#
#   sudo bash scripts/security-check.sh [--binary PATH] [--only direct,proxy,cas,loopback,console,record,browser,loopback-session,console-host,files] [--keep]
#
# Needs root and `ip netns` (Debian's iproute2), python3 (standard library only) and
# /usr/bin/chromium (scripts/setup-browser-tests.sh) for the browser cases. Without root or
# network namespaces: exit 1 with CI=true, otherwise a note and exit 0 (skipped).
# The binary: --binary, else $SAMLH_BIN, else .build/debug/samlharness. One line per case
# (PASS/FAIL, expected, got) and a summary; exit 1 on any FAIL. At most $SAMLH_SECURITY_DEADLINE
# seconds (default 240), torn down on every exit.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
repo="$(pwd)"

binary="${SAMLH_BIN:-.build/debug/samlharness}"
passthrough=()
while (($#)); do
  case "$1" in
    --binary) binary="$2"; shift 2 ;;
    --binary=*) binary="${1#--binary=}"; shift ;;
    *) passthrough+=("$1"); shift ;;
  esac
done

skip() {
  if [[ "${CI:-}" == true ]]; then
    echo "security-check: FAILED: $* (CI=true: the security suite must run)" >&2
    exit 1
  fi
  echo "security-check: skipped: $* (run it as root on Linux with iproute2)"
  exit 0
}

[[ $(id -u) -eq 0 ]] || skip "not root: network namespaces need root"
command -v ip >/dev/null || skip "no ip command (Debian: apt-get install iproute2)"
probe="samlh-sec-probe-$$"
ip netns add "$probe" 2>/dev/null || skip "ip netns add failed: no network namespace support here"
ip netns del "$probe"
[[ -x "$binary" ]] || { echo "security-check: FAILED: no binary $binary (swift build --product samlharness, or --binary PATH)" >&2; exit 1; }

server_ns="samlh-sec-$$-srv"
attacker_ns="samlh-sec-$$-atk"
# Whatever happens to the driver (a kill, the deadline): its processes and namespaces go.
cleanup() {
  for ns in "$server_ns" "$attacker_ns"; do
    if ip netns list 2>/dev/null | grep -qw "$ns"; then
      pids="$(ip netns pids "$ns" 2>/dev/null || true)"
      [[ -n "$pids" ]] && kill -9 $pids 2>/dev/null || true
      ip netns del "$ns" 2>/dev/null || true
    fi
    rm -rf "/etc/netns/$ns"
  done
}
child=""
# A signal goes to the driver (through timeout, which passes it on), which tears down itself;
# then the EXIT trap removes whatever is left.
stop() {
  if [[ -n "$child" ]]; then kill -TERM "$child" 2>/dev/null || true; wait "$child" 2>/dev/null || true; fi
  exit "$1"
}
trap cleanup EXIT
trap 'stop 130' INT
trap 'stop 143' TERM

deadline="${SAMLH_SECURITY_DEADLINE:-240}"
status=0
# In the background and waited for, so that a signal to this script is handled at once.
timeout --kill-after=10 "$deadline" python3 scripts/security_check.py run --binary "$binary" --repo "$repo" \
  --server-ns "$server_ns" --attacker-ns "$attacker_ns" --veth "shs$(($$ % 10000000))" \
  --subnet "10.231.$(($$ % 250 + 1))" "${passthrough[@]+"${passthrough[@]}"}" &
child=$!
wait "$child" || status=$?
child=""
if ((status == 124 || status == 137)); then
  echo "security-check: FAILED: not finished within ${deadline} s" >&2
fi
exit "$status"
