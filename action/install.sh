#!/usr/bin/env bash
# Step 1 of the SAMLHarness action: get a samlharness binary.
#
#   INPUT_INSTALL=release   (default) install the released Debian package with apt:
#                           INPUT_DEB (a URL or a path of a samlharness_*.deb), else the release
#                           INPUT_VERSION (a tag; empty: the latest) of INPUT_REPOSITORY
#                           (owner/name; default the action's own, GITHUB_ACTION_REPOSITORY)
#                           downloaded with `gh release download` (GH_TOKEN), or with curl and
#                           the REST API where there is no gh (a debian:bookworm container).
#   INPUT_INSTALL=source    build it: scripts/install-deps.sh, then
#                           `swift build -c release --static-swift-stdlib` in INPUT_SOURCE_DIR
#                           (default GITHUB_ACTION_PATH: the action's checkout is the repository).
#   INPUT_INSTALL=path      use INPUT_SAMLHARNESS_BIN as it is (a binary already built or installed).
#
# Outputs: bin (the binary's absolute path), version (`samlharness --version`); the binary's folder
# is added to GITHUB_PATH. A binary that cannot be had is a configuration error: ::error and exit 2.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
source "$here/lib.sh"

fail() {
  annotate error "SAMLHarness: configuration error" "$1"
  printf '## ❌ SAMLHarness: configuration error\n\n%s\n' "$1" | summary
  exit 2
}

# curl, installed with apt when missing (a slim container has none).
need_curl() {
  command -v curl >/dev/null && return 0
  sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get update -qq >/dev/null \
    && sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends curl ca-certificates >/dev/null \
    || fail "install: release needs curl, and apt-get could not install it"
}

mode="${INPUT_INSTALL:-release}"
case "$mode" in
  path)
    bin="${INPUT_SAMLHARNESS_BIN:-}"
    [[ -n $bin ]] || fail "install: path needs samlharness-bin (the binary to use)"
    [[ $bin == */* ]] || bin="$(command -v "$bin" || true)"
    [[ -n $bin && -f $bin && -x $bin ]] || fail "samlharness-bin ${INPUT_SAMLHARNESS_BIN} is not an executable file"
    bin="$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")"
    ;;
  source)
    source_dir="${INPUT_SOURCE_DIR:-${GITHUB_ACTION_PATH:-}}"
    [[ -n $source_dir && -f $source_dir/Package.swift ]] \
      || fail "install: source needs a SAMLHarness checkout (source-dir, default the action's own checkout); ${source_dir:-none} has no Package.swift"
    command -v swift >/dev/null || fail "install: source needs a Swift 6 toolchain on PATH (e.g. a swift:6.0-bookworm container, or install: release)"
    (
      cd "$source_dir"
      echo "::group::scripts/install-deps.sh"
      bash scripts/install-deps.sh
      echo "::endgroup::"
      echo "::group::swift build -c release --static-swift-stdlib"
      swift build -c release --static-swift-stdlib --product samlharness
      swift build -c release --static-swift-stdlib --product samlh-reference-client
      echo "::endgroup::"
    ) || fail "building SAMLHarness from source in $source_dir failed (the log above says where)"
    bin="$(cd "$source_dir" && pwd)/.build/release/samlharness"
    ;;
  release)
    deb="${INPUT_DEB:-}"
    download="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/samlharness-deb"
    rm -rf "$download"; mkdir -p "$download"
    if [[ $deb == http://* || $deb == https://* ]]; then
      need_curl
      curl -fsSL --retry 3 -o "$download/${deb##*/}" "$deb" || fail "cannot download $deb"
      deb="$download/${deb##*/}"
    elif [[ -z $deb ]]; then
      repository="${INPUT_REPOSITORY:-${GITHUB_ACTION_REPOSITORY:-}}"
      [[ -n $repository ]] || fail "install: release needs deb (a URL or path) or repository (owner/name) to download the release from"
      if command -v gh >/dev/null; then
        # shellcheck disable=SC2086 # an empty version is the latest release
        gh release download ${INPUT_VERSION:-} --repo "$repository" --pattern 'samlharness_*_amd64.deb' --dir "$download" \
          || fail "cannot download samlharness_*_amd64.deb from the ${INPUT_VERSION:-latest} release of $repository"
      else
        # No GitHub CLI (a debian:bookworm container): the REST API with curl.
        need_curl
        api="https://api.github.com/repos/$repository/releases/${INPUT_VERSION:+tags/$INPUT_VERSION}"
        [[ -n ${INPUT_VERSION:-} ]] || api+="latest"
        url="$(curl -fsSL --retry 3 ${GH_TOKEN:+-H "Authorization: Bearer $GH_TOKEN"} "$api" \
               | grep -oE '"browser_download_url": *"[^"]*/samlharness_[^"/]*_amd64\.deb"' | head -n1 | sed -E 's/.*"(https?:[^"]*)"$/\1/')"
        [[ -n $url ]] || fail "the ${INPUT_VERSION:-latest} release of $repository has no samlharness_*_amd64.deb ($api)"
        curl -fsSL --retry 3 -o "$download/${url##*/}" "$url" || fail "cannot download $url"
      fi
      deb="$(ls "$download"/samlharness_*_amd64.deb | head -n1)"
    fi
    [[ -f $deb ]] || fail "no Debian package at $deb"
    deb="$(cd "$(dirname "$deb")" && pwd)/$(basename "$deb")"   # apt-get installs a file given by path
    echo "::group::apt-get install $deb"
    sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get update -qq \
      && sudo_if_needed env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$deb" \
      || fail "apt-get install $deb failed (the package is built for Debian 12: run the job in a debian:bookworm container, or use install: source)"
    echo "::endgroup::"
    bin="$(command -v samlharness)" || fail "the package installed no samlharness on PATH"
    # The https scenarios need the machine's local test CA (docs/tls.md), made and trusted here
    # as on a development machine; the package ships the script (its Recommends: openssl,
    # ca-certificates, which it needs).
    tls=/usr/share/samlharness/scripts/setup-tls.sh
    if [[ -f $tls ]]; then
      sudo_if_needed bash "$tls" || fail "$tls failed: the https scenarios would error"
    fi
    ;;
  *) fail "install must be release, source or path, not '$mode'" ;;
esac

version="$("$bin" --version 2>&1)" || fail "$bin --version failed: $version"
echo "SAMLHarness: $bin ($version)"
output bin "$bin"
output version "$version"
[[ -n ${GITHUB_PATH:-} ]] && dirname "$bin" >>"$GITHUB_PATH"
exit 0
