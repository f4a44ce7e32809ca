#!/usr/bin/env bash
# The fresh-machine check (issue 33): the README's main job on a clean Debian 12 root that has
# only the Swift toolchain, so a missing install step fails here on any machine, warm or not.
# docs/fresh-machine.md says what such a machine has and what the project's scripts add.
#
#   bash scripts/fresh-machine-check.sh [options]      (as root: debootstrap, mount, chroot)
#
#   --no-deps        skip phase 6 (every install/setup script of the test command, from nothing)
#   --deps-only      skip phase 5 (the main job): for working on the install/setup scripts; the
#                    check is then not complete and says so
#   --test-command   also run the whole test command in the root afterwards
#                    (`CI=true bash scripts/test.sh`: about an hour more; not in CI)
#   --keep           leave the root (unmounted) for debugging and print how to enter it again
#   --rebuild-cache  make the cached toolchain-ready root again even when it is readable
#   --cache-dir DIR  where the cached root lives (default /var/cache/samlharness)
#   --work-dir DIR   where the throwaway roots go (default /var/tmp/samlharness-fresh)
#   -h, --help       this text
#
# Phases (each bounded by `timeout`; SAMLH_FRESH_TIMEOUT_<PHASE>=SECONDS overrides), each
# printing its elapsed time:
#   1 cache    Once per machine: `debootstrap --variant=minbase bookworm` (mirror from
#              /etc/apt/sources.list.d/debian.sources, whose file the root gets too), then only
#              the packages the Swift toolchain itself needs (TOOLCHAIN_PACKAGES below),
#              --no-install-recommends; apt's lists and archives emptied, as in an image. Kept as
#              CACHE_DIR/bookworm-toolchain.tar, made again when missing, unreadable or made for
#              another package list or mirror. debootstrap is installed with apt when missing.
#   2 unpack   The tar into a new directory WORK_DIR/check.XXXXXX/root. What the machine and its
#              network give any fresh machine: /etc/resolv.conf; /etc/hosts when there is none;
#              the host's extra CAs of /usr/local/share/ca-certificates (an intercepting egress
#              proxy's) and /etc/pip.conf (where pip finds that bundle). The toolchain: /opt/swift
#              bind-mounted read-only and put on PATH (/etc/profile.d/swift.sh); /opt/swift-packages
#              read-only with the host's git `url.<base>.insteadOf` rewrites in the root's
#              /etc/gitconfig (Swift packages resolve from there). /sys, /dev, /dev/pts and a
#              tmpfs /dev/shm are bind-mounted; each command runs in new PID and mount
#              namespaces with a /proc of its own, so nothing it starts outlives it.
#   3 hello    Proof that the root is exactly toolchain-ready: `swift package init --type
#              executable`, `swift build`, and the program prints "Hello, world!".
#   4 clone    `git clone` of the repository this script lives in, at its committed HEAD (not
#              the working tree), into /root/SAMLHarness.
#   5 main-job In there, as a new user (root, login shell, clean environment): exactly the
#              README's main job, `bash scripts/run-catalog.sh`. It must exit 0, and every
#              scenario of `samlharness list` must have a result in Reports/catalog/report.json
#              that is `pass`; the only other outcome accepted is `skipped` of a scenario tagged
#              kerberos whose reason names setup-kerberos.sh (they need a realm). Otherwise the
#              check fails listing each scenario, its outcome and its reason.
#   6 deps     Every install/setup script the test command calls (read from scripts/test.sh:
#              its `bash scripts/install-deps.sh` and `bash scripts/setup-*.sh [install]` lines),
#              plus the two it reaches indirectly (setup-real-clients-system.sh through
#              real-clients.sh, setup-peer-idp.sh through record-real-chains.sh), in order, each
#              from nothing, each timed; they use apt-get (Debian's mirror) and pip (PyPI).
#   7 test-command  Only with --test-command: `CI=true bash scripts/test.sh` in the root.
# On every exit (success, failure, timeout, signal): the running phase is stopped, processes
# whose root is the check's are killed, every mount under the root is lazily unmounted deepest
# first, and the root is removed only when /proc/self/mountinfo shows nothing mounted under it
# (and then with --one-file-system). Exit 0: everything passed; 1: a phase failed or timed out;
# 2: usage or setup error; 128+N: stopped by signal N (cleaned up all the same).
set -euo pipefail

SUITE=bookworm
# What the Swift 6 toolchain itself needs to build `swift package init --type executable` in a
# minbase root (docs/fresh-machine.md); nothing the project needs. Phase 3 proves it suffices.
# libcurl4 is libcurl.so.4, which swift-package, swift-build and swift-run load (their
# FoundationNetworking): not the project's libcurl4-openssl-dev (headers, -lcurl).
TOOLCHAIN_PACKAGES=(git ca-certificates binutils gcc libc6-dev libstdc++-12-dev libgcc-12-dev
                    libsqlite3-0 libncurses6 libedit2 libxml2 libcurl4 tzdata python3 libpython3.11)
SWIFT_DIR=${SAMLH_FRESH_SWIFT:-/opt/swift}                       # the toolchain (usr/bin/swift)
SWIFT_PACKAGES_DIR=${SAMLH_FRESH_SWIFT_PACKAGES:-/opt/swift-packages}  # a local package mirror, if any
CLONE_DIR=/root/SAMLHarness          # inside the root
ROOT_PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache_dir=/var/cache/samlharness
work_dir=/var/tmp/samlharness-fresh
keep=0 deps=1 main_job=1 test_command=0 rebuild_cache=0
args=("$@")

usage() { sed -n '2,/^set -euo pipefail/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }
while (($#)); do
  case "$1" in
    --keep) keep=1 ;;
    --no-deps) deps=0 ;;
    --deps) deps=1 ;;
    --deps-only) deps=1 main_job=0 ;;
    --test-command) test_command=1 ;;
    --rebuild-cache) rebuild_cache=1 ;;
    --cache-dir) cache_dir="${2:?--cache-dir needs a directory}"; shift ;;
    --work-dir) work_dir="${2:?--work-dir needs a directory}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "fresh-machine-check: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
  shift
done

timeout_of() {  # timeout_of PHASE DEFAULT_SECONDS
  local var="SAMLH_FRESH_TIMEOUT_${1^^}"; var="${var//-/_}"
  echo "${!var:-$2}"
}
T_CACHE=$(timeout_of cache 1800)
T_UNPACK=$(timeout_of unpack 600)
T_HELLO=$(timeout_of hello 900)
T_CLONE=$(timeout_of clone 300)
T_MAIN_JOB=$(timeout_of main-job 3600)
T_DEPS_SCRIPT=$(timeout_of deps-script 1800)   # each install/setup script
T_TEST_COMMAND=$(timeout_of test-command 10800)

say() { printf 'fresh-machine-check: %s\n' "$*"; }
die() { printf 'fresh-machine-check: %s\n' "$*" >&2; exit "${2:-1}"; }

if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then exec sudo -n bash "${BASH_SOURCE[0]}" "${args[@]+"${args[@]}"}"; fi
  die "needs root (debootstrap, mount, chroot)" 2
fi
for tool in unshare chroot timeout tar git python3 flock; do
  command -v "$tool" >/dev/null || die "$tool is missing on this machine" 2
done
[[ -x $SWIFT_DIR/usr/bin/swift ]] || die "no Swift toolchain at $SWIFT_DIR" 2
repo="$(git -C "$script_dir" rev-parse --show-toplevel)"
# Physical paths: they are compared with the mount points of /proc/self/mountinfo.
mkdir -p "$cache_dir" "$work_dir"
cache_dir="$(cd "$cache_dir" && pwd -P)" work_dir="$(cd "$work_dir" && pwd -P)"
commit="$(git -C "$repo" rev-parse HEAD)"

# ---------------------------------------------------------------------------------------------
# Mounts, processes, cleanup

check_dir=""      # WORK_DIR/check.XXXXXX: the throwaway root's directory
root=""           # its root
building=""       # a cache root being made (always removed)
phase_pid=""      # the running bounded command
check_start=$SECONDS

mounts_under() {  # the mount points under $1 (itself included), deepest first
  awk -v d="$1" '{ m = $5; gsub(/\\040/, " ", m); if (m == d || index(m, d "/") == 1) print m }' /proc/self/mountinfo | sort -r
}

kill_inside() {  # kills (by pid) every process whose root directory is $1 or under it
  local pid link
  for pid in /proc/[0-9]*; do
    pid=${pid#/proc/}
    link=$(readlink "/proc/$pid/root" 2>/dev/null) || continue
    if [[ $link == "$1" || $link == "$1"/* ]]; then
      say "killing process $pid left in $1 ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80))"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

unmount_all() {  # lazily unmounts everything under $1, deepest first; true when nothing is left
  local tries m
  for tries in 1 2 3 4 5; do
    mapfile -t left < <(mounts_under "$1")
    ((${#left[@]})) || return 0
    for m in "${left[@]}"; do umount -l "$m" 2>/dev/null || true; done
  done
  mapfile -t left < <(mounts_under "$1")
  ((${#left[@]} == 0))
}

release() {  # release DIR KEEP: stop what runs in DIR, unmount it, remove it unless KEEP
  local dir=$1 keep_it=$2
  [[ -n $dir && -d $dir ]] || return 0
  kill_inside "$dir"
  if ! unmount_all "$dir"; then
    echo "fresh-machine-check: still mounted under $dir, NOT removing it:" >&2
    mounts_under "$dir" >&2
    return 1
  fi
  if ((keep_it)); then return 0; fi
  rm -rf --one-file-system "$dir"
}

stop_phase() {
  [[ -n $phase_pid ]] || return 0
  kill -TERM "$phase_pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$phase_pid" 2>/dev/null || break; sleep 1; done
  kill -KILL "$phase_pid" 2>/dev/null || true
  wait "$phase_pid" 2>/dev/null || true
  phase_pid=""
}

cleanup() {
  local rc=$? ok=1
  trap - EXIT
  trap '' INT TERM HUP   # a second Ctrl-C must not cut the unmounting short
  stop_phase
  if [[ -n $current_phase ]]; then
    phase_names+=("$current_phase") phase_times+=("$((SECONDS - phase_start))")
    if ((signalled)); then
      echo "fresh-machine-check: phase $current_phase stopped by the signal after $(elapsed $((SECONDS - phase_start)))" >&2
    elif ((rc == 124 || rc == 137)); then
      echo "fresh-machine-check: phase $current_phase TIMED OUT after $(elapsed $((SECONDS - phase_start))) (SAMLH_FRESH_TIMEOUT_* raises a limit)" >&2
      rc=1
    else
      echo "fresh-machine-check: phase $current_phase FAILED (exit $rc) after $(elapsed $((SECONDS - phase_start)))" >&2
      rc=1
    fi
  fi
  if [[ -n $building ]]; then release "$building" 0 || ok=0; fi
  if [[ -n $check_dir ]]; then
    if [[ -n $root ]]; then release "$root" "$keep" || ok=0; fi
    if ((keep)) && ((ok)); then
      say "kept $root (nothing mounted). To enter it again:"
      echo "  for d in sys dev dev/pts; do mount --bind /\$d $root/\$d; done"
      echo "  mount --bind -o ro $SWIFT_DIR $root$SWIFT_DIR; mount --bind -o ro $SWIFT_PACKAGES_DIR $root$SWIFT_PACKAGES_DIR"
      echo "  unshare --pid --fork --kill-child --mount --mount-proc=$root/proc chroot $root /usr/bin/env -i HOME=/root TERM=\$TERM bash -l"
      echo "  then: umount -l $root$SWIFT_PACKAGES_DIR $root$SWIFT_DIR $root/dev/pts $root/dev $root/sys; rm -rf --one-file-system $check_dir"
    elif ((ok)); then
      rm -rf --one-file-system "$check_dir"
    fi
  fi
  ((ok)) || { echo "fresh-machine-check: cleanup incomplete (see above)" >&2; ((rc)) || rc=1; }
  summary
  say "total $(elapsed $((SECONDS - check_start)))$( ((rc)) && echo ", FAILED" || echo ", passed")"
  exit "$rc"
}
trap cleanup EXIT
signalled=0
trap 'signalled=1; say "interrupted (INT)"; exit 130' INT
trap 'signalled=1; say "terminated (TERM)"; exit 143' TERM
trap 'signalled=1; say "hung up (HUP)"; exit 129' HUP

bind() {  # bind SRC DST [ro]: a private bind mount
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mount --make-private "$2"
  if [[ ${3:-} == ro ]]; then mount -o remount,bind,ro "$2"; fi
}

mount_root() {  # the host side of a root's mounts (proc comes per command, see in_root)
  local r=$1
  bind /sys "$r/sys"
  bind /dev "$r/dev"
  bind /dev/pts "$r/dev/pts"
  mount -t tmpfs -o nosuid,nodev,mode=1777 shm "$r/dev/shm"
  mount --make-private "$r/dev/shm"
}

mount_toolchain() {
  bind "$SWIFT_DIR" "$1$SWIFT_DIR" ro
  if [[ -d $SWIFT_PACKAGES_DIR ]]; then bind "$SWIFT_PACKAGES_DIR" "$1$SWIFT_PACKAGES_DIR" ro; fi
}

elapsed() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

bounded() {  # bounded SECONDS COMMAND…: runs it under timeout; interruptible by our traps
  timeout --kill-after=30 "$1" "${@:2}" </dev/null &
  phase_pid=$!
  local rc=0
  wait "$phase_pid" || rc=$?
  phase_pid=""
  return "$rc"
}

in_root() {  # in_root ROOT SECONDS SCRIPT: bash -l in the root, clean environment, own PID+mount ns
  local r=$1 seconds=$2 script=$3
  bounded "$seconds" unshare --pid --fork --kill-child --mount --mount-proc="$r/proc" \
    chroot "$r" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8 \
      TERM="${TERM:-dumb}" PATH="$ROOT_PATH" /bin/bash -lc "$script"
}

declare -a phase_names=() phase_times=() deps_lines=()
current_phase="" phase_start=0
phase() {  # phase NAME LIMIT FUNCTION…: runs it (set -e holds: a failure exits, see cleanup)
  current_phase=$1 phase_start=$SECONDS
  say "── phase $1 (limit $2)"
  "${@:3}"
  phase_names+=("$1") phase_times+=("$((SECONDS - phase_start))")
  say "── phase $1: ok in $(elapsed "$((SECONDS - phase_start))")"
  current_phase=""
}

summary() {
  local i l
  for i in "${!phase_names[@]}"; do printf '  %-14s %s\n' "${phase_names[$i]}" "$(elapsed "${phase_times[$i]}")"; done
  for l in "${deps_lines[@]+"${deps_lines[@]}"}"; do printf '      %s\n' "$l"; done
}

# ---------------------------------------------------------------------------------------------
# Phase 1: the cached toolchain-ready root

sources_file=/etc/apt/sources.list.d/debian.sources
mirror() {  # the URIs of the stanza serving bookworm itself (not -security), else deb.debian.org
  local uri=""
  if [[ -f $sources_file ]]; then
    uri=$(awk -v s="$SUITE" '
      /^[[:space:]]*$/ { if (u != "" && ok) { print u; exit } u = ""; ok = 0; next }
      /^URIs:/ { u = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
      END { if (u != "" && ok) print u }' "$sources_file" | head -1)
  elif [[ -f /etc/apt/sources.list ]]; then
    uri=$(awk -v s="$SUITE" '$1 == "deb" && $3 == s { print $2; exit }' /etc/apt/sources.list)
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

cache_tar="$cache_dir/$SUITE-toolchain.tar"
cache_key_file="$cache_tar.key"
cache_key() { printf 'suite=%s variant=minbase mirror=%s packages=%s\n' "$SUITE" "$(mirror)" "${TOOLCHAIN_PACKAGES[*]}"; }

cache_usable() {
  ((rebuild_cache == 0)) && [[ -r $cache_tar && -r $cache_key_file ]] \
    && [[ "$(cat "$cache_key_file")" == "$(cache_key)" ]] && tar -tf "$cache_tar" >/dev/null 2>&1
}

make_cache() {
  if ! command -v debootstrap >/dev/null; then
    say "installing debootstrap (apt)"
    local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y -q)
    "${apt[@]}" install --no-install-recommends debootstrap >/dev/null \
      || { "${apt[@]}" update >/dev/null && "${apt[@]}" install --no-install-recommends debootstrap >/dev/null; }
  fi
  local m; m=$(mirror)
  building=$(mktemp -d "$cache_dir/build.XXXXXX")
  local r="$building/root"
  say "debootstrap --variant=minbase $SUITE from $m"
  bounded "$T_CACHE" debootstrap --variant=minbase "$SUITE" "$r" "$m" >"$building/debootstrap.log" 2>&1 \
    || { tail -30 "$building/debootstrap.log" >&2; return 1; }
  # apt in the root reads what the host's does (the same mirror, -updates and -security).
  if [[ -f $sources_file ]]; then
    cp "$sources_file" "$r/etc/apt/sources.list.d/"
    rm -f "$r/etc/apt/sources.list"
  fi
  cp /etc/resolv.conf "$r/etc/resolv.conf"
  mount_root "$r"
  say "installing the toolchain's own packages: ${TOOLCHAIN_PACKAGES[*]}"
  in_root "$r" "$T_CACHE" "set -e
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q --no-install-recommends ${TOOLCHAIN_PACKAGES[*]} >/dev/null
    dpkg-query -W -f='\${Status}\n' ${TOOLCHAIN_PACKAGES[*]} | grep -vxq 'install ok installed' && exit 1
    apt-get clean
    rm -rf /var/lib/apt/lists/*"
  unmount_all "$r" || die "could not unmount under $r"
  : >"$r/etc/resolv.conf"
  tar -C "$r" --one-file-system --numeric-owner -cpf "$cache_tar.new" .
  mv -f "$cache_tar.new" "$cache_tar"
  cache_key >"$cache_key_file"
  release "$building" 0
  building=""
  say "cached $cache_tar ($(du -h "$cache_tar" | cut -f1))"
}

phase_cache() {
  mkdir -p "$cache_dir"
  exec 9>"$cache_dir/lock"
  flock -w "$T_CACHE" 9 || die "another check holds $cache_dir/lock"
  if cache_usable; then
    say "using $cache_tar (made $(date -r "$cache_tar" '+%Y-%m-%d %H:%M'))"
  else
    say "making $cache_tar ($([[ -e $cache_tar ]] && echo "stale, unreadable or --rebuild-cache" || echo missing))"
    make_cache
  fi
  exec 9>&-
}

# ---------------------------------------------------------------------------------------------
# Phase 2: a fresh root from it

phase_unpack() {
  mkdir -p "$work_dir"
  check_dir=$(mktemp -d "$work_dir/check.XXXXXX")
  root="$check_dir/root"
  mkdir "$root"
  bounded "$T_UNPACK" tar -C "$root" --numeric-owner -xpf "$cache_tar"
  # The machine's and its network's, as any fresh machine here has them.
  cp /etc/resolv.conf "$root/etc/resolv.conf"
  [[ -s $root/etc/hosts ]] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$root/etc/hosts"
  local cas=()
  for ca in /usr/local/share/ca-certificates/*.crt; do
    if [[ -f $ca && $(basename "$ca") != samlharness-* ]]; then cas+=("$ca"); fi
  done
  if ((${#cas[@]})); then cp "${cas[@]}" "$root/usr/local/share/ca-certificates/"; fi
  if [[ -f /etc/pip.conf ]]; then cp /etc/pip.conf "$root/etc/pip.conf"; fi
  # The toolchain, as its installation gives it: on PATH, Swift packages from the local mirror.
  printf 'export PATH=%s/usr/bin:"$PATH"\n' "$SWIFT_DIR" >"$root/etc/profile.d/swift.sh"
  git config --system --get-regexp '^url\..*\.insteadof$' 2>/dev/null | while read -r key value; do
    git config --file "$root/etc/gitconfig" --add "$key" "$value"
  done
  mount_root "$root"
  mount_toolchain "$root"
  if ((${#cas[@]})); then
    say "the network's CAs: ${cas[*]##*/}"
    in_root "$root" 120 "update-ca-certificates 2>&1 >/dev/null | grep -v '^rehash: warning: skipping ca-certificates.crt' >&2 || true"
  fi
}

# ---------------------------------------------------------------------------------------------
# Phase 3: the root is toolchain-ready

phase_hello() {
  in_root "$root" "$T_HELLO" '
    set -eo pipefail
    swift --version 2>&1 | head -1
    rm -rf /tmp/hello && mkdir /tmp/hello && cd /tmp/hello
    swift package init --type executable --name hello >/dev/null
    swift build 2>&1 | tail -3
    out=$(.build/debug/hello)
    echo "hello says: $out"
    [ "$out" = "Hello, world!" ]
    cd / && rm -rf /tmp/hello ~/.cache/org.swift.swiftpm'
}

# ---------------------------------------------------------------------------------------------
# Phase 4: the project, as committed

phase_clone() {
  bounded "$T_CLONE" git clone --quiet --no-hardlinks "$repo" "$root$CLONE_DIR"
  git -C "$root$CLONE_DIR" reset --quiet --hard "$commit"
  say "cloned $repo at $(git -C "$root$CLONE_DIR" log -1 --format='%h %s' | cut -c1-100)"
}

# ---------------------------------------------------------------------------------------------
# Phase 5: the README's main job, and every scenario passes

main_job_status=0
phase_main_job() {
  in_root "$root" "$T_MAIN_JOB" "cd $CLONE_DIR && bash scripts/run-catalog.sh" || main_job_status=$?
  ((main_job_status != 124 && main_job_status != 137)) || return "$main_job_status"
  # The catalog as the binary lists it (tags included), for completeness and the kerberos tag.
  in_root "$root" 300 "cd $CLONE_DIR && .build/release/samlharness list --json" \
    >"$check_dir/list.jsonl" 2>"$check_dir/list.err" || true
  python3 - "$root$CLONE_DIR/Reports/catalog" "$check_dir/list.jsonl" "$main_job_status" <<'PY'
import json, os, re, sys

report_dir, list_file, status = sys.argv[1], sys.argv[2], int(sys.argv[3])
problems = []
if status:
    problems.append(f"`bash scripts/run-catalog.sh` exited {status}")

results = None
report = os.path.join(report_dir, "report.json")
jsonl = os.path.join(report_dir, "results.jsonl")
try:
    with open(report) as f:
        results = [r for run in json.load(f).get("runs", []) for r in run.get("results", [])]
except (OSError, ValueError) as e:
    problems.append(f"no readable report.json ({e})")
    try:
        with open(jsonl) as f:
            results = [r for r in map(json.loads, filter(str.strip, f)) if "scenario" in r]
        problems.append("(results below from results.jsonl)")
    except (OSError, ValueError) as e2:
        problems.append(f"no readable results.jsonl either ({e2})")

catalog = {}
try:
    with open(list_file) as f:
        for line in f:
            if line.strip().startswith("{"):
                s = json.loads(line)
                catalog[s["id"]] = s
except (OSError, ValueError, KeyError) as e:
    print(f"fresh-machine-check: `samlharness list --json` gave nothing usable ({e})", file=sys.stderr)
if not catalog:
    problems.append("`samlharness list --json` listed no scenario")

def first_line(text):
    return (text or "").strip().splitlines()[0][:200] if (text or "").strip() else "(no reason)"

bad, skipped, passed = [], [], 0
seen = set()
for r in results or []:
    sid, st, reason = r.get("scenario", "?"), r.get("status", "?"), r.get("reason") or ""
    seen.add(sid)
    tags = catalog.get(sid, {}).get("tags", [])
    if st == "pass":
        passed += 1
    elif st == "skipped" and "kerberos" in tags and "setup-kerberos.sh" in reason:
        skipped.append(sid)
    else:
        why = first_line(reason)
        failing = [v.get("check") for v in r.get("verdicts", []) if v.get("status") == "fail"]
        if failing:
            why += f" [failing checks: {', '.join(failing[:6])}{'…' if len(failing) > 6 else ''}]"
        if st == "skipped" and "kerberos" not in tags:
            why += " [skipped, but not tagged kerberos]"
        bad.append(f"{sid}: {st}: {why}")
missing = sorted(set(catalog) - seen)
if results is not None:
    print(f"fresh-machine-check: {len(results)} scenarios: {passed} pass, {len(skipped)} skipped "
          f"(tagged kerberos: need a realm, bash scripts/setup-kerberos.sh), {len(bad)} other")
if missing:
    problems.append(f"{len(missing)} scenario(s) of the catalog have no result: {', '.join(missing[:20])}")
if bad:
    problems.append(f"{len(bad)} scenario(s) did not pass:\n    " + "\n    ".join(bad))
if problems:
    print("fresh-machine-check: the README's main job FAILED on the fresh root:", file=sys.stderr)
    for p in problems:
        print("  " + p, file=sys.stderr)
    sys.exit(1)
PY
}

# ---------------------------------------------------------------------------------------------
# Phase 6: the test command's install/setup scripts, from nothing

deps_scripts() {  # the install/setup commands, in the order the test command reaches them
  grep -E '^bash scripts/(install-deps|setup-[A-Za-z0-9-]+)\.sh( install)?[[:space:]]*$' "$root$CLONE_DIR/scripts/test.sh" \
    | sed 's/[[:space:]]*$//'
  # Reached indirectly: real-clients.sh runs the system half of the real-client suite;
  # RecordRealProductsTests runs record-real-chains.sh, which installs SimpleSAMLphp this way.
  echo "bash scripts/setup-real-clients-system.sh"
  echo "bash scripts/setup-peer-idp.sh"
}

phase_deps() {
  local line start rc
  mapfile -t cmds < <(deps_scripts)
  ((${#cmds[@]} > 2)) || { echo "fresh-machine-check: found no install/setup line in scripts/test.sh" >&2; return 1; }
  for line in "${cmds[@]}"; do
    say "   $line"
    start=$SECONDS rc=0
    in_root "$root" "$T_DEPS_SCRIPT" "cd $CLONE_DIR && $line" || rc=$?
    deps_lines+=("$(printf '%-52s %s' "$line" "$(elapsed $((SECONDS - start)))")")
    if ((rc)); then
      echo "fresh-machine-check: \`$line\` FAILED (exit $rc) in the fresh root after the main job" >&2
      return "$rc"
    fi
  done
}

phase_test_command() {
  in_root "$root" "$T_TEST_COMMAND" "cd $CLONE_DIR && CI=true bash scripts/test.sh"
}

# ---------------------------------------------------------------------------------------------

say "commit $commit of $repo; swift $("$SWIFT_DIR/usr/bin/swift" --version 2>&1 | head -1 | sed 's/.*version \([^ ]*\).*/\1/')"
phase cache "$(elapsed "$T_CACHE")" phase_cache
phase unpack "$(elapsed "$T_UNPACK")" phase_unpack
phase hello "$(elapsed "$T_HELLO")" phase_hello
phase clone "$(elapsed "$T_CLONE")" phase_clone
if ((main_job)); then phase main-job "$(elapsed "$T_MAIN_JOB")" phase_main_job; fi
if ((deps)); then phase deps "$(elapsed "$T_DEPS_SCRIPT") per script" phase_deps; fi
if ((test_command)); then phase test-command "$(elapsed "$T_TEST_COMMAND")" phase_test_command; fi

if ((main_job)); then
  say "PASSED: the README's main job on a fresh Debian 12 root with only the Swift toolchain$( ((deps)) && echo ", and the test command's install/setup scripts from nothing")"
else
  say "the test command's install/setup scripts passed from nothing; the main job was NOT checked (--deps-only)"
fi
