# Sourced: clean Debian 12 roots, cached per machine (scripts/package-check.sh). The same
# pattern, cache and cleanup rules as scripts/fresh-machine-check.sh (whose cached root has the
# Swift toolchain's packages; this one is plain `debootstrap --variant=minbase`, nothing more,
# so what a package pulls in shows): the mirror of /etc/apt/sources.list.d/debian.sources, a tar
# under /var/cache/samlharness made again when missing, unreadable or made for another mirror,
# a copy unpacked per check, commands run in new PID and mount namespaces with a /proc of their
# own, and on the way out every mount under the root lazily unmounted deepest first, the root
# removed only when /proc/self/mountinfo shows nothing mounted under it (then with
# --one-file-system: an rm -rf through a live bind mount of /dev deletes the host's files).
#
#   cr_minbase_tar CACHE_DIR SECONDS      prints the cached minbase tar (makes it when needed)
#   cr_unpack TAR DIR                     a fresh root in DIR (resolv.conf, hosts, the network's CAs)
#   cr_mount ROOT                         /sys, /dev, /dev/pts, a tmpfs /dev/shm
#   cr_in_root ROOT SECONDS SCRIPT        bash -lc SCRIPT in it, as root, clean environment
#   cr_release ROOT                       kill what runs in it, unmount, remove; false if still mounted
# The caller sets cr_say/cr_die if it wants other words (defaults print "clean-root: …").
#
# Needs root (debootstrap, mount, chroot), unshare, chroot, timeout, tar, flock, findmnt.

CR_SUITE=bookworm
CR_PATH="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
cr_sources_file=/etc/apt/sources.list.d/debian.sources
cr_pid=""    # the running bounded command (cr_stop ends it)

declare -F cr_say >/dev/null || cr_say() { printf 'clean-root: %s\n' "$*"; }

cr_mirror() {  # the URIs of the stanza serving bookworm itself (not -security), else deb.debian.org
  local uri=""
  if [[ -f $cr_sources_file ]]; then
    uri=$(awk -v s="$CR_SUITE" '
      /^[[:space:]]*$/ { if (u != "" && ok) { print u; exit } u = ""; ok = 0; next }
      /^URIs:/ { u = $2 }
      /^Suites:/ { for (i = 2; i <= NF; i++) if ($i == s) ok = 1 }
      END { if (u != "" && ok) print u }' "$cr_sources_file" | head -1)
  elif [[ -f /etc/apt/sources.list ]]; then
    uri=$(awk -v s="$CR_SUITE" '$1 == "deb" && $3 == s { print $2; exit }' /etc/apt/sources.list)
  fi
  echo "${uri:-http://deb.debian.org/debian}"
}

cr_mounts_under() {  # the mount points under $1 (itself included), deepest first
  awk -v d="$1" '{ m = $5; gsub(/\\040/, " ", m); if (m == d || index(m, d "/") == 1) print m }' /proc/self/mountinfo | sort -r
}

cr_kill_inside() {  # kills (by pid) every process whose root directory is $1 or under it
  local pid link
  for pid in /proc/[0-9]*; do
    pid=${pid#/proc/}
    link=$(readlink "/proc/$pid/root" 2>/dev/null) || continue
    if [[ $link == "$1" || $link == "$1"/* ]]; then
      cr_say "killing process $pid left in $1 ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-80))"
      kill -KILL "$pid" 2>/dev/null || true
    fi
  done
}

cr_unmount_all() {  # lazily unmounts everything under $1, deepest first; true when nothing is left
  local m left
  for _ in 1 2 3 4 5; do
    mapfile -t left < <(cr_mounts_under "$1")
    ((${#left[@]})) || return 0
    for m in "${left[@]}"; do umount -l "$m" 2>/dev/null || true; done
  done
  mapfile -t left < <(cr_mounts_under "$1")
  ((${#left[@]} == 0))
}

cr_release() {  # cr_release DIR: stop what runs in DIR, unmount it, remove it
  local dir=$1
  [[ -n $dir && -d $dir ]] || return 0
  cr_kill_inside "$dir"
  if ! cr_unmount_all "$dir"; then
    echo "clean-root: still mounted under $dir, NOT removing it:" >&2
    cr_mounts_under "$dir" >&2
    return 1
  fi
  rm -rf --one-file-system "$dir"
}

cr_bind() {  # cr_bind SRC DST: a private bind mount
  mkdir -p "$2"
  mount --bind "$1" "$2"
  mount --make-private "$2"
}

cr_mount() {  # the host side of a root's mounts (proc comes per command, see cr_in_root)
  local r=$1
  cr_bind /sys "$r/sys"
  cr_bind /dev "$r/dev"
  cr_bind /dev/pts "$r/dev/pts"
  mount -t tmpfs -o nosuid,nodev,mode=1777 shm "$r/dev/shm"
  mount --make-private "$r/dev/shm"
}

cr_bounded() {  # cr_bounded SECONDS COMMAND…: under timeout, interruptible (cr_stop)
  timeout --kill-after=30 "$1" "${@:2}" </dev/null &
  cr_pid=$!
  local rc=0
  wait "$cr_pid" || rc=$?
  cr_pid=""
  return "$rc"
}

cr_stop() {  # ends the running bounded command, if any
  [[ -n $cr_pid ]] || return 0
  kill -TERM "$cr_pid" 2>/dev/null || true
  for _ in $(seq 1 30); do kill -0 "$cr_pid" 2>/dev/null || break; sleep 1; done
  kill -KILL "$cr_pid" 2>/dev/null || true
  wait "$cr_pid" 2>/dev/null || true
  cr_pid=""
}

# CR_RUN ROOT: the command line that runs a command in ROOT, in new PID and mount namespaces
# with a /proc of its own (nothing it starts outlives it), in a clean environment, as root.
cr_run_argv() {
  cr_argv=(unshare --pid --fork --kill-child --mount --mount-proc="$1/proc"
           chroot "$1" /usr/bin/env -i HOME=/root USER=root LOGNAME=root SHELL=/bin/bash LANG=C.UTF-8
           TERM="${TERM:-dumb}" PATH="$CR_PATH")
}

cr_run() {  # cr_run ROOT COMMAND…: COMMAND in the root (see cr_run_argv), not bounded
  cr_run_argv "$1"; shift
  "${cr_argv[@]}" "$@"
}

cr_in_root() {  # cr_in_root ROOT SECONDS SCRIPT: bash -lc SCRIPT in the root, bounded
  cr_run_argv "$1"
  cr_bounded "$2" "${cr_argv[@]}" /bin/bash -lc "$3"
}

cr_minbase_key() { printf 'suite=%s variant=minbase mirror=%s\n' "$CR_SUITE" "$(cr_mirror)"; }

# cr_minbase_tar CACHE_DIR SECONDS: prints CACHE_DIR/bookworm-minbase.tar, made when missing,
# unreadable or for another mirror (or when CR_REBUILD=1), under CACHE_DIR/lock.
cr_minbase_tar() {
  local cache_dir=$1 seconds=$2 tar key building rc=0
  tar="$cache_dir/$CR_SUITE-minbase.tar"
  key="$(cr_minbase_key)"
  mkdir -p "$cache_dir"
  exec 8>"$cache_dir/lock"
  flock -w "$seconds" 8 || { echo "clean-root: another check holds $cache_dir/lock" >&2; return 1; }
  if [[ ${CR_REBUILD:-0} != 1 && -r $tar && -r $tar.key && "$(cat "$tar.key")" == "$key" ]] && tar -tf "$tar" >/dev/null 2>&1; then
    exec 8>&-
    echo "$tar"
    return 0
  fi
  if ! command -v debootstrap >/dev/null; then
    cr_say "installing debootstrap (apt)" >&2
    local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y -q)
    "${apt[@]}" install --no-install-recommends debootstrap >/dev/null \
      || { "${apt[@]}" update >/dev/null && "${apt[@]}" install --no-install-recommends debootstrap >/dev/null; }
  fi
  building=$(mktemp -d "$cache_dir/build.XXXXXX")
  cr_say "debootstrap --variant=minbase $CR_SUITE from $(cr_mirror) (once per machine: $tar)" >&2
  cr_bounded "$seconds" debootstrap --variant=minbase "$CR_SUITE" "$building/root" "$(cr_mirror)" >"$building/debootstrap.log" 2>&1 || rc=$?
  if ((rc == 0)); then
    # apt in the root reads what the host's does (the same mirror, -updates and -security).
    if [[ -f $cr_sources_file ]]; then
      cp "$cr_sources_file" "$building/root/etc/apt/sources.list.d/"
      rm -f "$building/root/etc/apt/sources.list"
    fi
    rm -rf "$building/root/var/lib/apt/lists/"* "$building/root/var/cache/apt/archives/"*.deb
    : >"$building/root/etc/resolv.conf"
    tar -C "$building/root" --one-file-system --numeric-owner -cpf "$tar.new" . && mv -f "$tar.new" "$tar" && echo "$key" >"$tar.key" || rc=$?
  else
    tail -20 "$building/debootstrap.log" >&2
  fi
  cr_release "$building" || rc=1
  exec 8>&-
  ((rc == 0)) && echo "$tar"
  return "$rc"
}

# cr_unpack TAR DIR: a fresh root in DIR (created), with what the machine and its network give
# any fresh machine: /etc/resolv.conf, /etc/hosts when there is none, the host's extra CAs of
# /usr/local/share/ca-certificates (an intercepting egress proxy's, not the harness's own).
cr_unpack() {
  local tar=$1 r=$2 ca
  mkdir -p "$r"
  tar -C "$r" --numeric-owner -xpf "$tar"
  cp /etc/resolv.conf "$r/etc/resolv.conf"
  [[ -s $r/etc/hosts ]] || printf '127.0.0.1\tlocalhost\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$r/etc/hosts"
  mkdir -p "$r/usr/local/share/ca-certificates"
  for ca in /usr/local/share/ca-certificates/*.crt; do
    if [[ -f $ca && $(basename "$ca") != samlharness-* ]]; then cp "$ca" "$r/usr/local/share/ca-certificates/"; fi
  done
}
