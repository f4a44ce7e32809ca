#!/usr/bin/env bash
# The packages on a clean system (issue 34): what scripts/package.sh wrote into dist/, installed
# the way a user installs it, on a clean Debian 12 root that has no Swift toolchain (debootstrap
# --variant=minbase, nothing more; cached per machine, scripts/lib/clean-root.sh), and the image
# built from the repository's Containerfile with podman (scripts/lib/podman.sh).
#
#   bash scripts/package-check.sh [options]        (as root: debootstrap, mount, chroot, podman)
#
#   --no-image       skip the image phases
#   --no-tarball     skip the tarball phase
#   --dist DIR       where the packages are (default dist/)
#   --keep-image     leave the image built from the Containerfile (localhost/samlharness-check)
#   --cache-dir DIR  where the cached root lives (default /var/cache/samlharness)
#   --work-dir DIR   where the throwaway roots go (default /var/tmp/samlharness-package)
#   -h, --help       this text
#
# Phases (each bounded by `timeout`, SAMLH_PKG_TIMEOUT_<PHASE>=SECONDS overrides; each timed):
#   cache     the cached minbase root (debootstrap once per machine, ~1 min)
#   deb       a fresh root: `apt-get install ./samlharness_VERSION_amd64.deb` (what apt pulls in
#             is listed; nothing of Swift may be among it, and the root has no toolchain);
#             `samlharness --version` names build-info's commit; the local test CA
#             (/usr/share/samlharness/scripts/setup-tls.sh) made and trusted
#   catalog   as an ordinary user in a directory of its own: `samlharness run --builtin reference
#             --time-scale 0.1 --jobs 2`: every scenario passes, only the kerberos-tagged ones may
#             be skipped (they need a realm); the reports land in ./Reports
#   serve     `samlharness serve` in the root, its ready line read, and a login through it from
#             the host with curl: HTTP Basic on the ready line's auth.basic with its first user
#             (401 without credentials, the secret page with them); SIGTERM ends it with exit 0
#   pytest    the pytest plugin as its users get it: Debian's python3-venv, a venv with the pins
#             of scripts/setup-pytest-plugin.sh, `pip install ./python`, and the plugin's README
#             example (python/tests/test_plugin.py -k readme_example) against /usr/bin/samlharness
#   tarball   a second fresh root: the tarball unpacked in /opt, only the packages its README's
#             apt line names installed, then --version and the whole catalog from PATH
#   image     podman (installed when missing) builds the Containerfile over a base image imported
#             from the same minbase root (no registry here), with the .deb of dist/
#   image-run the catalog inside the image (reports on a host folder mounted at /work/Reports),
#             then the image's `serve` (its default command when ports 8080-8090 are free) reached
#             from the host with curl, its health check healthy, `podman stop` exiting 0
# Without podman working (or with --no-image) the image phases are skipped, said loudly; in CI
# (CI=true) that is a failure unless --no-image was given. On every exit (success, failure,
# timeout, signal) the running phase is stopped, containers removed, every mount under the roots
# lazily unmounted and the roots removed (only when nothing is mounted under them). Exit 0:
# every phase passed; 1: one failed; 2: usage or setup error.
set -euo pipefail

script_dir="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(cd "$script_dir/.." && pwd)"
dist="$repo/dist"
cache_dir=/var/cache/samlharness
work_dir=/var/tmp/samlharness-package
image=1 tarball=1 keep_image=0
usage() { sed -n '2,/^set -euo pipefail/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }
while (($#)); do
  case "$1" in
    --no-image) image=0 ;;
    --no-tarball) tarball=0 ;;
    --keep-image) keep_image=1 ;;
    --dist) dist="$(cd "${2:?--dist needs a directory}" && pwd)"; shift ;;
    --cache-dir) cache_dir="${2:?--cache-dir needs a directory}"; shift ;;
    --work-dir) work_dir="${2:?--work-dir needs a directory}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "package-check: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
  shift
done

say() { printf 'package-check: %s\n' "$*"; }
die() { printf 'package-check: %s\n' "$*" >&2; exit "${2:-1}"; }
cr_say() { say "$@"; }
if [[ $(id -u) -ne 0 ]]; then
  if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then exec sudo -n CI="${CI:-}" bash "${BASH_SOURCE[0]}" "$@"; fi
  die "needs root (debootstrap, mount, chroot, podman)" 2
fi
for tool in unshare chroot timeout tar python3 curl flock dpkg-deb; do
  command -v "$tool" >/dev/null || die "$tool is missing on this machine" 2
done
# shellcheck source=lib/clean-root.sh
. "$script_dir/lib/clean-root.sh"
# shellcheck source=lib/podman.sh
. "$script_dir/lib/podman.sh"

shopt -s nullglob
debs=("$dist"/samlharness_*_amd64.deb)
tars=("$dist"/samlharness-*-linux-x86_64.tar.gz)
shopt -u nullglob
((${#debs[@]} == 1)) || die "expected one samlharness_*_amd64.deb in $dist, found ${#debs[@]}: run bash scripts/package.sh" 2
((tarball == 0 || ${#tars[@]} == 1)) || die "expected one samlharness-*-linux-x86_64.tar.gz in $dist: run bash scripts/package.sh" 2
deb="${debs[0]}"
version="$(dpkg-deb -f "$deb" Version)"
commit="$(dpkg-deb --fsys-tarfile "$deb" | tar -xOf - ./usr/share/samlharness/build-info | sed -n 's/^commit=//p')"
[[ -n $commit ]] || die "$deb has no usr/share/samlharness/build-info commit" 2

timeout_of() { local var="SAMLH_PKG_TIMEOUT_${1^^}"; var="${var//-/_}"; echo "${!var:-$2}"; }
T_CACHE=$(timeout_of cache 1200)
T_DEB=$(timeout_of deb 600)
T_CATALOG=$(timeout_of catalog 900)
T_SERVE=$(timeout_of serve 180)
T_PYTEST=$(timeout_of pytest 600)
T_TARBALL=$(timeout_of tarball 1200)
T_IMAGE=$(timeout_of image 1200)
T_IMAGE_RUN=$(timeout_of image-run 1200)

# ---------------------------------------------------------------------------------------------
# Cleanup, phases

check_dir="" roots=() container="" serve_pid="" image_tag="" base_tag=""
check_start=$SECONDS
declare -a phase_names=() phase_times=() notes=()
current_phase="" phase_start=0
elapsed() { printf '%dm%02ds' $(($1 / 60)) $(($1 % 60)); }

cleanup() {
  local rc=$? ok=1 r
  trap - EXIT INT TERM HUP
  cr_stop
  if [[ -n $serve_pid ]]; then kill -TERM "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
  if [[ -n $container ]]; then podman_cmd rm -f -v -t 5 "$container" >/dev/null 2>&1 || true; fi
  if [[ -n $image_tag ]] && ((keep_image == 0)); then podman_cmd rmi -f "$image_tag" >/dev/null 2>&1 || true; fi
  if [[ -n $current_phase ]]; then
    phase_names+=("$current_phase") phase_times+=("$((SECONDS - phase_start))")
    if ((rc == 124 || rc == 137)); then
      echo "package-check: phase $current_phase TIMED OUT after $(elapsed $((SECONDS - phase_start))) (SAMLH_PKG_TIMEOUT_* raises a limit)" >&2
    else
      echo "package-check: phase $current_phase FAILED (exit $rc) after $(elapsed $((SECONDS - phase_start)))" >&2
    fi
    ((rc)) || rc=1
  fi
  for r in "${roots[@]+"${roots[@]}"}"; do cr_release "$r" || ok=0; done
  if [[ -n $check_dir && -d $check_dir ]] && ((ok)); then rm -rf --one-file-system "$check_dir"; fi
  ((ok)) || { echo "package-check: cleanup incomplete (see above)" >&2; ((rc)) || rc=1; }
  local i
  for i in "${!phase_names[@]}"; do printf '  %-10s %s\n' "${phase_names[$i]}" "$(elapsed "${phase_times[$i]}")"; done
  for i in "${notes[@]+"${notes[@]}"}"; do printf '  %s\n' "$i"; done
  say "total $(elapsed $((SECONDS - check_start)))$( ((rc)) && echo ", FAILED" || echo ", passed")"
  exit "$rc"
}
trap cleanup EXIT
trap 'say "interrupted (INT)"; exit 130' INT
trap 'say "terminated (TERM)"; exit 143' TERM
trap 'say "hung up (HUP)"; exit 129' HUP

phase() {  # phase NAME LIMIT FUNCTION…
  current_phase=$1 phase_start=$SECONDS
  say "── phase $1 (limit $(elapsed "$2"))"
  "${@:3}"
  phase_names+=("$1") phase_times+=("$((SECONDS - phase_start))")
  say "── phase $1: ok in $(elapsed "$((SECONDS - phase_start))")"
  current_phase=""
}

fresh_root() {  # fresh_root NAME: a new root from the cached tar, mounted; sets $root
  root="$check_dir/$1"
  roots+=("$root")
  cr_unpack "$minbase" "$root"
  cr_mount "$root"
}

# ---------------------------------------------------------------------------------------------

minbase=""
phase_cache() {
  minbase="$(cr_minbase_tar "$cache_dir" "$T_CACHE")"
  say "using $minbase ($(du -h "$minbase" | cut -f1), made $(date -r "$minbase" '+%Y-%m-%d %H:%M'))"
}

# The packages a root has, one a line.
packages_of() { cr_run "$1" dpkg-query -W -f '${Package}\n' | sort; }

phase_deb() {
  fresh_root deb
  packages_of "$root" >"$check_dir/before.txt"
  [[ ! -e $root/opt/swift ]] && ! cr_run "$root" sh -c 'command -v swift swiftc' >/dev/null \
    || die "the root has a Swift toolchain"
  cp "$deb" "$root/tmp/"
  cr_in_root "$root" "$T_DEB" "set -e
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    apt-get install -y -q /tmp/$(basename "$deb") >/tmp/apt.log 2>&1 || { tail -30 /tmp/apt.log >&2; exit 1; }
    rm /tmp/$(basename "$deb")"
  packages_of "$root" >"$check_dir/after.txt"
  local pulled
  pulled="$(comm -13 "$check_dir/before.txt" "$check_dir/after.txt" | tr '\n' ' ')"
  say "apt installed $(wc -w <<<"$pulled") packages: $pulled"
  notes+=("deb: apt pulled in $(wc -w <<<"$pulled") packages")
  if grep -qiE '(^| )[^ ]*swift' <<<"$pulled"; then die "apt pulled something of Swift: $pulled"; fi
  local got
  got="$(cr_run "$root" samlharness --version)"
  [[ $got == "samlharness $version ($commit)" ]] || die "samlharness --version said '$got', expected 'samlharness $version ($commit)'"
  say "samlharness --version: $got"
  cr_in_root "$root" 300 "set -e
    useradd --create-home --shell /bin/bash tester
    SAMLH_TLS_DIR=/var/lib/samlh-tls bash /usr/share/samlharness/scripts/setup-tls.sh
    chown -R tester:tester /var/lib/samlh-tls"
}

run_catalog_in() {  # run_catalog_in ROOT LABEL [PATH-PREFIX]: the whole catalog as tester, judged
  local r=$1 label=$2 prefix=${3:-} status=0
  local path="$CR_PATH"
  [[ -n $prefix ]] && path="$prefix:$CR_PATH"
  cr_in_root "$r" "$T_CATALOG" "mkdir -p /home/tester/work && chown tester:tester /home/tester/work
    exec runuser -u tester -- env -i HOME=/home/tester USER=tester LANG=C.UTF-8 PATH=$path SAMLH_TLS_DIR=/var/lib/samlh-tls \
      bash -c 'cd ~/work && samlharness list --json >list.jsonl && exec samlharness run --builtin reference --time-scale 0.1 --jobs 2 >run.log 2>&1'" \
    || status=$?
  ((status != 124 && status != 137)) || return "$status"
  tail -3 "$r/home/tester/work/run.log" | sed 's/^/    /'
  [[ -d $r/home/tester/work/Reports ]] || die "$label: no ./Reports written in the working directory"
  [[ ! -e $r/usr/share/samlharness/Reports ]] || die "$label: reports written beside the installed data"
  python3 "$script_dir/lib/catalog_judge.py" "$label" "$r/home/tester/work/Reports" "$r/home/tester/work/list.jsonl" "$status"
}

phase_catalog() { run_catalog_in "$root" catalog; }

# ready_line FILE SECONDS: waits for a JSON line with "event": "ready" in FILE, prints it.
ready_line() {
  python3 - "$1" "$2" <<'PY'
import json, sys, time
path, deadline = sys.argv[1], time.time() + float(sys.argv[2])
while time.time() < deadline:
    try:
        for line in open(path, errors="replace"):
            line = line.strip()
            if line.startswith("{") and '"ready"' in line:
                d = json.loads(line)
                if d.get("event") == "ready":
                    print(json.dumps(d)); sys.exit(0)
    except (OSError, ValueError):
        pass
    time.sleep(0.2)
sys.exit(1)
PY
}

# basic_login READY_JSON LABEL: curl from the host: 401 without credentials, the secret with them.
basic_login() {
  local ready=$1 label=$2 url user pass code body
  read -r url user pass < <(python3 -c 'import json,sys; d=json.loads(sys.argv[1]); u=d["users"][0]
print(d["auth"]["basic"], u["username"], u["password"])' "$ready")
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$url")"
  [[ $code == 401 ]] || die "$label: GET $url without credentials answered $code, not 401"
  body="$(curl -fsS --max-time 10 -u "$user:$pass" "$url")" || die "$label: GET $url as $user failed"
  grep -q 'id="secret"' <<<"$body" || die "$label: $url as $user gave no secret page"
  say "$label: curl → $url: 401 without credentials, the secret page as $user"
}

phase_serve() {
  local out="$root/tmp/serve.out" ready rc=0
  : >"$out"
  cr_run "$root" runuser -u tester -- env -i HOME=/home/tester PATH="$CR_PATH" SAMLH_TLS_DIR=/var/lib/samlh-tls \
    samlharness serve --port 0 >"$out" 2>"$root/tmp/serve.err" </dev/null &
  serve_pid=$!
  ready="$(ready_line "$out" 60)" || { tail -5 "$root/tmp/serve.err" >&2; die "serve printed no ready line within 60 s"; }
  basic_login "$ready" serve
  # SIGTERM to serve itself (inside the root's PID namespace): it must stop cleanly, exit 0.
  local pid link
  for pid in /proc/[0-9]*; do
    pid=${pid#/proc/}
    link=$(readlink "/proc/$pid/root" 2>/dev/null) || continue
    [[ $link == "$root" ]] && tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -q '^samlharness serve' && kill -TERM "$pid"
  done
  wait "$serve_pid" || rc=$?
  serve_pid=""
  ((rc == 0)) || die "serve exited $rc on SIGTERM: $(tail -3 "$root/tmp/serve.err")"
  say "serve: stopped by SIGTERM, exit 0"
}

# The pytest plugin as its users get it, against the installed samlharness: Debian's python3,
# a venv with the pins of scripts/setup-pytest-plugin.sh, `pip install ./python`, and the plugin's
# README example (test_plugin.py's test_the_readme_example_passes_as_written: a login through
# samlharness_serve judged by verdicts(), and a client function judged by samlharness_run).
phase_pytest() {
  local pins
  pins="$(bash -c '. <(sed -n "/^PINS=(/,/)/p;/^BUILD_PINS=(/p" "$1"); echo "${PINS[*]} ${BUILD_PINS[*]}"' _ \
    "$script_dir/setup-pytest-plugin.sh")"
  [[ $pins == *pytest==* ]] || die "cannot read the pins of scripts/setup-pytest-plugin.sh"
  rm -rf "$root/tmp/python"
  cp -r "$repo/python" "$root/tmp/python"
  rm -rf "$root/tmp/python/build" "$root/tmp/python"/src/*.egg-info
  # What the machine's network gives any fresh machine (an intercepting proxy's CA for pip).
  [[ -f /etc/pip.conf ]] && cp /etc/pip.conf "$root/etc/pip.conf"
  cr_in_root "$root" "$T_PYTEST" "set -e
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -q python3-venv >/tmp/apt-python.log 2>&1 || { tail -20 /tmp/apt-python.log >&2; exit 1; }
    chown -R tester:tester /tmp/python
    exec runuser -u tester -- env -i HOME=/home/tester USER=tester LANG=C.UTF-8 PATH=$CR_PATH \
      SAMLH_TLS_DIR=/var/lib/samlh-tls SAMLH_BIN=/usr/bin/samlharness bash -c '
        set -e
        python3 -m venv ~/venv
        ~/venv/bin/pip install --no-input -q $pins >~/pip.log 2>&1 || { tail -20 ~/pip.log >&2; exit 1; }
        ~/venv/bin/pip install --no-input -q /tmp/python >>~/pip.log 2>&1 || { tail -20 ~/pip.log >&2; exit 1; }
        cd /tmp/python
        ~/venv/bin/python -m pytest -p no:cacheprovider -q tests/test_plugin.py -k readme_example'"
  say "pytest: the plugin's README example passed against /usr/bin/samlharness"
}

phase_tarball() {
  fresh_root tarball
  local tgz="${tars[0]}" name line
  name="$(basename "$tgz" .tar.gz)"
  tar -C "$root/opt" -xzf "$tgz"
  line="$(grep -m1 'apt-get install' "$root/opt/$name/README" | sed 's/^ *sudo //')"
  [[ -n $line ]] || die "the tarball's README names no apt-get install line"
  say "README: $line"
  cr_in_root "$root" "$T_TARBALL" "set -e
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q >/dev/null
    ${line/apt-get install/apt-get install -y -q --no-install-recommends} >/tmp/apt.log 2>&1 || { tail -30 /tmp/apt.log >&2; exit 1; }
    useradd --create-home --shell /bin/bash tester
    SAMLH_TLS_DIR=/var/lib/samlh-tls bash /opt/$name/share/samlharness/scripts/setup-tls.sh
    chown -R tester:tester /var/lib/samlh-tls"
  local got
  got="$(cr_run "$root" "/opt/$name/bin/samlharness" --version)"
  [[ $got == "samlharness $version ($commit)" ]] || die "tarball: --version said '$got'"
  run_catalog_in "$root" tarball "/opt/$name/bin"
}

# ---------------------------------------------------------------------------------------------
# The image

phase_image() {
  # The base: the cached minbase root, imported once per tar (no registry to pull from).
  base_tag="localhost/samlharness-check-base:$(sha256sum "$minbase.key" | cut -c1-12)-$(date -r "$minbase" +%s)"
  if ! podman_cmd image exists "$base_tag"; then
    local old
    for old in $(podman_cmd images --format '{{.Repository}}:{{.Tag}}' | grep '^localhost/samlharness-check-base:' || true); do
      podman_cmd rmi -f "$old" >/dev/null 2>&1 || true
    done
    say "importing $minbase as $base_tag"
    cr_bounded "$T_IMAGE" "${PODMAN[@]}" import "$minbase" "$base_tag" >/dev/null
  fi
  image_tag="localhost/samlharness-check:$version"
  local t=$SECONDS
  podman_build_argv "$dist" "$image_tag" "$base_tag"
  cr_bounded "$T_IMAGE" "${podman_build[@]}" >"$check_dir/image.log" 2>&1 \
    || { tail -40 "$check_dir/image.log" >&2; return 1; }
  say "built $image_tag from Containerfile in $((SECONDS - t)) s ($(podman_cmd image inspect --format '{{.Size}}' "$image_tag" | awk '{ printf "%d MB", $1 / 1048576 }'))"
  notes+=("image: built in $((SECONDS - t)) s")
  local user got
  user="$(podman_cmd image inspect --format '{{.Config.User}}' "$image_tag")"
  [[ -n $user && $user != root && $user != 0 && $user != 0:* ]] || die "the image runs as root (User '$user')"
  got="$(podman_cmd run --rm --network=host --no-healthcheck "$image_tag" --version)"
  [[ $got == "samlharness $version ($commit)" ]] || die "image: --version said '$got'"
  say "image: user $user; $got"
}

free_ports() {  # free_ports FIRST LAST: true when nothing listens on 127.0.0.1:FIRST…LAST
  local p
  for ((p = $1; p <= $2; p++)); do
    if (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then return 1; fi
  done
}

phase_image_run() {
  local reports="$check_dir/image-reports" status=0
  mkdir -p "$reports"
  chown 1000:1000 "$reports"
  podman_cmd run --rm --network=host --no-healthcheck "$image_tag" list --json >"$check_dir/image-list.jsonl"
  cr_bounded "$T_IMAGE_RUN" "${PODMAN[@]}" run --rm --init --network=host --no-healthcheck -v "$reports:/work/Reports" "$image_tag" \
    run --builtin reference --time-scale 0.1 --jobs 2 >"$check_dir/image-run.log" 2>&1 || status=$?
  ((status != 124 && status != 137)) || return "$status"
  tail -3 "$check_dir/image-run.log" | sed 's/^/    /'
  python3 "$script_dir/lib/catalog_judge.py" image "$reports" "$check_dir/image-list.jsonl" "$status"

  # serve, as docs/install.md tells a user: the image's own command, its ports published
  # (-p 8080-8088:8080-8088 -p 8090:8090) when they are free here and podman's bridge network
  # works; else on the host's network (--network=host), on free ports when 8080-8090 are taken.
  local args=() net=() ready how
  container="samlharness-check-$$"
  # No systemd here to time the health check: it is run by hand below (--health-interval=disable).
  # (podman still says, on stderr, that it cannot reach systemd: kept in podman.err.)
  local run=(run -d --name "$container" --health-interval=disable)
  if free_ports 8080 8090 && podman_cmd "${run[@]}" -p 8080-8088:8080-8088 -p 8090:8090 "$image_tag" \
       >/dev/null 2>>"$check_dir/podman.err"; then
    how="published ports (-p 8080-8088:8080-8088 -p 8090:8090), the image's own command"
  else
    podman_cmd rm -f -v "$container" >/dev/null 2>&1 || true
    if ! free_ports 8080 8090; then
      local base
      for base in 18080 28080 38080 48080; do free_ports "$base" $((base + 10)) && break; done
      args=(serve --host 0.0.0.0 --public-host localhost --port "$base" --console-port $((base + 10)))
      how="the host's network, ports $base-$((base + 10)) (8080-8090 are taken here)"
    else
      how="the host's network (podman's bridge network does not work here: $(tail -1 "$check_dir/podman.err"))"
    fi
    podman_cmd "${run[@]}" --network=host "$image_tag" "${args[@]}" >/dev/null 2>>"$check_dir/podman.err" \
      || { cat "$check_dir/podman.err" >&2; die "image: podman run serve failed"; }
  fi
  say "image: serve through $how"
  local deadline=$((SECONDS + 60))
  until ready="$(podman_cmd logs "$container" 2>/dev/null | grep -m1 '"event"' | grep '"ready"')"; do
    ((SECONDS < deadline)) || { podman_cmd logs "$container" 2>&1 | tail -5 >&2; die "image: serve printed no ready line within 60 s"; }
    sleep 0.5
  done
  grep -q '"http://localhost:' <<<"$ready" || die "image: the ready line's URLs do not name localhost: ${ready:0:200}"
  basic_login "$ready" image-serve
  # The control API listens on the container's loopback only (docs/security.md): through a
  # published port nothing answers; on the host's network it needs the session's token.
  local control token code
  control="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["control"]["state"])' "$ready")"
  token="$(python3 -c 'import json,sys; print(json.loads(sys.argv[1])["control"]["token"])' "$ready")"
  code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 "$control" || true)"
  if [[ $how == published* ]]; then
    [[ $code == 000 ]] || die "image: the control API answered $code to the host through a published port: it must not listen there"
  else
    [[ $code == 401 ]] || die "image: the control API answered $code without the session's token on the host's loopback, not 401"
    code="$(curl -s -o /dev/null -w '%{http_code}' --max-time 10 -H "Authorization: Bearer $token" "$control")"
    [[ $code == 200 ]] || die "image: the control API answered $code with the session's token on the host's loopback, not 200"
  fi
  say "image: control API from the host: $code"
  local health
  health="$(podman_cmd healthcheck run "$container" 2>&1)" || die "image: the health check failed: $health"
  say "image: health check ${health:-healthy}"
  podman_cmd stop -t 30 "$container" >/dev/null 2>>"$check_dir/podman.err"
  code="$(podman_cmd inspect --format '{{.State.ExitCode}}' "$container")"
  podman_cmd rm -v "$container" >/dev/null 2>>"$check_dir/podman.err"
  container=""
  [[ $code == 0 ]] || die "image: serve exited $code on podman stop (SIGTERM)"
  say "image: serve stopped by podman stop, exit 0"
}

# ---------------------------------------------------------------------------------------------

say "$(basename "$deb") ($(du -h "$deb" | cut -f1)), version $version, commit $commit"
mkdir -p "$work_dir"
check_dir="$(mktemp -d "$work_dir/check.XXXXXX")"
phase cache "$T_CACHE" phase_cache
phase deb "$T_DEB" phase_deb
phase catalog "$T_CATALOG" phase_catalog
phase serve "$T_SERVE" phase_serve
phase pytest "$T_PYTEST" phase_pytest
if ((tarball)); then phase tarball "$T_TARBALL" phase_tarball; fi
if ((image)); then
  podman_install || true
  if podman_ready; then
    phase image "$T_IMAGE" phase_image
    phase image-run "$T_IMAGE_RUN" phase_image_run
  elif [[ ${CI:-} == true ]]; then
    die "the image phases cannot run: $podman_problem (--no-image skips them)"
  else
    say "SKIPPED the image phases: $podman_problem"
    notes+=("image: SKIPPED ($podman_problem)")
  fi
fi
say "PASSED: the .deb$( ((tarball)) && echo ", the tarball")$( ((image)) && [[ -n $image_tag ]] && echo " and the image") on a clean Debian 12 without Swift"
