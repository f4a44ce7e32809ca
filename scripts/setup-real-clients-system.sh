#!/usr/bin/env bash
# The system half of the real-client suite (Tests/RealClients, issue 17): the Debian packages
# whose clients the suite wraps, and the OpenJDK wrapper compiled once.
#
#   bash scripts/setup-real-clients-system.sh          install what is missing, compile, print versions
#   bash scripts/setup-real-clients-system.sh --check  install nothing; exit 1 when something is missing
#
# Packages (Debian 12 "bookworm"; Debian serves one version per release, plus its security
# updates, so the pin is the upstream version of that release — a different one is a warning,
# not a failure, and the versions given are printed on one line for the report):
#   curl                 7.88.1     curl(1): -u, --anyauth, --digest, -x, --proxy-user, --proxy-anyauth
#   wget                 1.21.3     wget(1): --user/--password, -e use_proxy=yes
#   default-jdk-headless 17         OpenJDK 17: java.net.HttpURLConnection + java.net.Authenticator
#   libwww-perl          6.68       Perl's LWP::UserAgent with credentials()
#   ruby-mechanize       2.8.5      Ruby's Mechanize (net-http-persistent, net-http-digest_auth, rubyntlm)
#   golang-go            1.19       Go's net/http + net/http/cookiejar (standard library only)
#
# Idempotent: apt-get runs (update first, once) only when a package is missing; the Java
# wrapper is compiled into .build-real-clients/java (gitignored) and the Go one into
# .build-real-clients/go (its GOCACHE/GOPATH there too, offline: standard library only) only when
# its source is newer than the build. Must run as root (or with sudo) when something has to be installed.
set -euo pipefail

cd "$(dirname "$0")/.."
check_only=0
case "${1:-}" in
  --check) check_only=1 ;;
  "") ;;
  *) echo "setup-real-clients-system: unknown option $1 (--check)" >&2; exit 2 ;;
esac

# package  expected upstream version (the Debian revision may move with security updates)
expected=(
  "curl 7.88.1"
  "wget 1.21.3"
  "default-jdk-headless 2:1.17"
  "libwww-perl 6.68"
  "ruby-mechanize 2.8.5"
  "golang-go 2:1.19"
)

installed_version() {  # the installed version of $1, empty when it is not installed
  dpkg-query -W -f='${db:Status-Status} ${Version}\n' "$1" 2>/dev/null | awk '$1 == "installed" { print $2 }'
}

missing=()
for entry in "${expected[@]}"; do
  package=${entry%% *}
  [[ -n $(installed_version "$package") ]] || missing+=("$package")
done

if ((${#missing[@]})); then
  if ((check_only)); then
    echo "setup-real-clients-system: missing: ${missing[*]}" >&2
    exit 1
  fi
  sudo=""
  if [[ $(id -u) -ne 0 ]]; then sudo="sudo -n"; fi
  export DEBIAN_FRONTEND=noninteractive CI=true
  apt_options=(-y -q --no-install-recommends -o Dpkg::Options::=--force-confdef -o Dpkg::Options::=--force-confold)
  # Update the lists only when apt does not know one of the packages yet (a fresh image).
  for package in "${missing[@]}"; do
    if [[ -z $(apt-cache policy "$package" 2>/dev/null | awk '/Candidate:/ && $2 != "(none)" { print $2 }') ]]; then
      $sudo apt-get update -q
      break
    fi
  done
  echo "setup-real-clients-system: installing ${missing[*]}"
  $sudo apt-get install "${apt_options[@]}" "${missing[@]}"
fi

# Versions given, one line; a warning when the upstream version is not the release's.
line="real-clients-system:"
for entry in "${expected[@]}"; do
  package=${entry%% *} want=${entry#* }
  have=$(installed_version "$package")
  line+=" $package=$have"
  case "$have" in
    "$want"|"$want"[-+.~]*) ;;
    *) echo "setup-real-clients-system: warning: $package is $have, the suite was pinned on $want (Debian $(. /etc/os-release; echo "${VERSION_CODENAME:-?}"))" >&2 ;;
  esac
done
java_runtime=$(java -XshowSettings:properties -version 2>&1 | awk -F' = ' '/java.runtime.version/ { print $2 }')
line+=" java.runtime.version=$java_runtime"
echo "$line"

# The OpenJDK wrapper, compiled when its source changed.
source="Tests/RealClients/java/JdkHttpClient.java"
out=".build-real-clients/java"
if [[ -f $source ]]; then
  if [[ ! -f $out/JdkHttpClient.class || $source -nt $out/JdkHttpClient.class ]]; then
    ((check_only)) && { echo "setup-real-clients-system: $out/JdkHttpClient.class is missing or stale" >&2; exit 1; }
    mkdir -p "$out"
    javac --release 17 -Xlint:all -Werror -d "$out" "$source"
    echo "setup-real-clients-system: compiled $source into $out"
  fi
fi

# The Go wrapper (standard library only), built when its source changed: GOCACHE and GOPATH in
# .build-real-clients/go so nothing lands in $HOME, offline (GOPROXY=off; GOTOOLCHAIN=local keeps
# a newer go command from fetching a toolchain), no go.mod needed for one file.
source="Tests/RealClients/go/gohttp.go"
out=".build-real-clients/go"
if [[ -f $source ]]; then
  if [[ ! -x $out/gohttp || $source -nt $out/gohttp ]]; then
    ((check_only)) && { echo "setup-real-clients-system: $out/gohttp is missing or stale" >&2; exit 1; }
    mkdir -p "$out/cache" "$out/path"
    env GOCACHE="$PWD/$out/cache" GOPATH="$PWD/$out/path" GOENV=off GOTOOLCHAIN=local GOPROXY=off GOFLAGS= CGO_ENABLED=0 \
      go build -trimpath -o "$out/gohttp" "$source"
    echo "setup-real-clients-system: built $source into $out/gohttp"
  fi
fi
