# Sourced: podman as it works on these machines (package.sh --image, package-check.sh):
# Debian's podman with runc (crun fails: "cgroups in hybrid mode not supported"), vfs storage,
# builds with --isolation=chroot and --network=host, containers on the host's network, and a
# containers.conf without default ulimits or a pids limit, cgroupfs as the cgroup manager
# (otherwise: "setrlimit RLIMIT_NOFILE/NPROC: Operation not permitted"). No registry is
# reachable here: base images come from `podman import` (package-check.sh imports its
# debootstrap root).
#
#   podman_install        apt-get install podman runc catatonit when one is missing (as root;
#                         catatonit is `podman run --init`'s init)
#   podman_ready          true when podman runs here (sets podman_problem otherwise)
#   podman_cmd ARGS…      podman with those settings; `build` gets --isolation, --network, --format
#   podman_build_argv CONTEXT TAG [BASE]   the Containerfile's build command line, in $podman_build

SAMLH_PODMAN_CONF="${SAMLH_PODMAN_CONF:-${TMPDIR:-/tmp}/samlharness-containers.conf}"
podman_problem=""

podman_install() {
  command -v podman >/dev/null && command -v runc >/dev/null && [[ -x /usr/libexec/podman/catatonit ]] && return 0
  local apt=(env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 -y -q)
  "${apt[@]}" install --no-install-recommends podman runc catatonit >/dev/null 2>&1 \
    || { "${apt[@]}" update >/dev/null 2>&1 && "${apt[@]}" install --no-install-recommends podman runc catatonit >/dev/null 2>&1; }
}

podman_conf() {
  [[ -s $SAMLH_PODMAN_CONF ]] && return 0
  cat >"$SAMLH_PODMAN_CONF" <<'EOF'
[containers]
default_ulimits = []
pids_limit = 0

[engine]
cgroup_manager = "cgroupfs"
EOF
}

# PODMAN: the command line podman_cmd runs (an array, for `timeout "${PODMAN[@]}" …`);
# PODMAN_BUILD: the options every build gets (HEALTHCHECK is kept only in the docker image
# format: OCI has no field for it).
PODMAN=(env CONTAINERS_CONF="$SAMLH_PODMAN_CONF" podman --storage-driver=vfs --runtime=runc)
PODMAN_BUILD=(build --isolation=chroot --network=host --format=docker)

podman_cmd() {
  podman_conf
  if [[ $1 == build ]]; then shift; "${PODMAN[@]}" "${PODMAN_BUILD[@]}" "$@"; else "${PODMAN[@]}" "$@"; fi
}

podman_ready() {
  if ! command -v podman >/dev/null; then podman_problem="podman is not installed (apt-get install podman runc)"; return 1; fi
  if ! command -v runc >/dev/null; then podman_problem="runc is not installed (apt-get install runc)"; return 1; fi
  local out
  if ! out="$(podman_cmd info --format '{{.Store.GraphDriverName}}' 2>&1)"; then
    podman_problem="podman info failed: $(tail -1 <<<"$out")"; return 1
  fi
  return 0
}

# podman_build_argv CONTEXT TAG [BASE_IMAGE]: sets podman_build, the command line that builds the
# repository's Containerfile over CONTEXT (the folder holding samlharness_*_amd64.deb, dist/),
# tagged TAG; BASE_IMAGE overrides the Containerfile's default.
podman_build_argv() {
  local context=$1 tag=$2 base=${3:-} repo
  repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
  podman_conf
  podman_build=("${PODMAN[@]}" "${PODMAN_BUILD[@]}" -f "$repo/Containerfile" -t "$tag")
  [[ -n $base ]] && podman_build+=(--build-arg "BASE_IMAGE=$base")
  podman_build+=("$context")
}
