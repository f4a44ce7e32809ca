#!/usr/bin/env bash
# Packages the release build for people who do not build it (issue 34; docs/install.md):
#
#   bash scripts/package.sh [--no-build] [--image] [--base-image IMAGE] [--out DIR]
#
# writes into DIR (default dist/):
#   samlharness_VERSION_amd64.deb            `apt-get install ./dist/samlharness_VERSION_amd64.deb`:
#                                            Depends computed by dpkg-shlibdeps from the binaries
#   samlharness-VERSION-linux-x86_64.tar.gz  the same files under samlharness-VERSION-linux-x86_64/
#                                            (bin/, lib/, share/), its README naming the libraries
#   with --image: the OCI image localhost/samlharness:VERSION (and :latest) from ./Containerfile,
#   built by podman (scripts/lib/podman.sh) over --base-image (default: the Containerfile's,
#   debian:bookworm-slim; scripts/package-check.sh passes one imported from a debootstrap root).
#
# The layout (PREFIX /usr in the .deb): bin/samlharness and bin/samlh-reference-client are
# symbolic links into lib/samlharness/, where the executables sit beside their SwiftPM resource
# bundles (*.resources: Bundle.module looks beside the real executable); share/samlharness/ holds
# MockIdP/, Scenarios/, docs/, examples/, README.md, scripts/setup-tls.sh and build-info (version,
# commit, build time: `samlharness --version` reads the commit there); share/man/man1/samlharness.1
# is made from the binary's own help; bash, zsh and fish completions come from ArgumentParser.
#
# VERSION is what the binary says (`samlharness --version`, HarnessVersion.current); the data are
# the files git tracks, as they are in the working tree (build-info's commit ends -dirty when
# tracked files differ from HEAD). The release build is scripts/lib/build.sh's, the one
# run-catalog.sh and release-smoke.sh make (a no-op when it is up to date); --no-build uses it as
# it is. Exit 0: everything written; 1: a step failed; 2: usage.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$repo"
# shellcheck source=lib/build.sh
. scripts/lib/build.sh

build=1 image=0 base_image="" out="$repo/dist"
usage() { sed -n '2,/^set -euo pipefail/p' "${BASH_SOURCE[0]}" | sed -e '$d' -e 's/^# \{0,1\}//'; }
while (($#)); do
  case "$1" in
    --no-build) build=0 ;;
    --image) image=1 ;;
    --base-image) base_image="${2:?--base-image needs an image}"; image=1; shift ;;
    --out) out="${2:?--out needs a directory}"; shift ;;
    -h|--help) usage; exit 0 ;;
    *) echo "package: unknown option $1 (--help)" >&2; exit 2 ;;
  esac
  shift
done

say() { printf 'package: %s\n' "$*"; }
die() { printf 'package: %s\n' "$*" >&2; exit 1; }
started=$SECONDS
for tool in dpkg-deb dpkg-shlibdeps strip python3 git gzip; do
  command -v "$tool" >/dev/null || die "$tool is missing (apt-get install dpkg-dev binutils python3 git)"
done
[[ $(dpkg --print-architecture) == amd64 ]] || die "only amd64 is packaged (this is $(dpkg --print-architecture))"

if ((build)); then
  say "release build: swift build ${SAMLH_RELEASE_FLAGS[*]}"
  t=$SECONDS
  release_build >/dev/null || die "swift build ${SAMLH_RELEASE_FLAGS[*]} failed (run it for the errors)"
  say "built in $((SECONDS - t)) s"
fi
bindir="$(release_bin_dir)"
for exe in samlharness samlh-reference-client; do
  [[ -x $bindir/$exe ]] || die "$bindir/$exe is missing: run without --no-build"
done
# The Swift runtime must be inside the binaries, never asked of the system.
if ldd "$bindir/samlharness" "$bindir/samlh-reference-client" | grep -E 'libswift|libFoundation|libdispatch|libBlocksRuntime' >&2; then
  die "the release binaries load Swift's shared libraries: not a --static-swift-stdlib build"
fi

version_line="$("$bindir/samlharness" --version)"
version="$(awk '{ print $2 }' <<<"$version_line")"
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+([~+.-][0-9A-Za-z.~+-]*)?$ ]] || die "unexpected version line: $version_line"
commit="$(git rev-parse --short HEAD)"
git diff --quiet HEAD -- || commit+="-dirty"
epoch="$(git log -1 --format=%ct)"     # file times in the archives: the commit's (reproducible)
built="$(date -u +%Y-%m-%dT%H:%M:%SZ)"

work="$(mktemp -d "${TMPDIR:-/tmp}/samlh-package.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# stage PREFIX: the installed tree under PREFIX (usr for the .deb, the tarball's top directory).
stage() {
  local prefix=$1 lib share
  lib="$prefix/lib/samlharness" share="$prefix/share/samlharness"
  mkdir -p "$prefix/bin" "$lib" "$share" "$prefix/share/man/man1" "$prefix/share/bash-completion/completions" \
           "$prefix/share/zsh/vendor-completions" "$prefix/share/fish/vendor_completions.d"
  for exe in samlharness samlh-reference-client; do
    # Debug information out (it is most of the size); the symbol table stays, for backtraces.
    strip --strip-debug -o "$lib/$exe" "$bindir/$exe"
    chmod 755 "$lib/$exe"
    ln -s "../lib/samlharness/$exe" "$prefix/bin/$exe"
  done
  local bundle
  for bundle in "$bindir"/*.resources; do
    [[ -d $bundle ]] && cp -R "$bundle" "$lib/"
  done
  # The data: the files git tracks, as the working tree has them.
  git ls-files -z -- MockIdP Scenarios docs examples README.md | while IFS= read -r -d '' f; do
    [[ -f $f ]] || continue    # deleted in the working tree
    install -D -m 644 "$f" "$share/$f"
  done
  install -D -m 755 scripts/setup-tls.sh "$share/scripts/setup-tls.sh"
  printf 'version=%s\ncommit=%s\nbuilt=%s\n' "$version" "$commit" "$built" >"$share/build-info"
  "$bindir/samlharness" --generate-completion-script bash >"$prefix/share/bash-completion/completions/samlharness"
  "$bindir/samlharness" --generate-completion-script zsh >"$prefix/share/zsh/vendor-completions/_samlharness"
  "$bindir/samlharness" --generate-completion-script fish >"$prefix/share/fish/vendor_completions.d/samlharness.fish"
  python3 scripts/lib/manpage.py "$bindir/samlharness" "$version" "$(date -u -d "@$epoch" +%Y-%m-%d)" \
    | gzip -9n >"$prefix/share/man/man1/samlharness.1.gz"
  find "$prefix" -type d -exec chmod 755 {} +
}

# ---------------------------------------------------------------------------------------------
# The .deb

t=$SECONDS
root="$work/deb"
stage "$root/usr"
mkdir -p "$root/usr/share/doc/samlharness" "$root/DEBIAN"
cat >"$root/usr/share/doc/samlharness/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: SAMLHarness
Comment: samlharness $version ($commit). The executables link the Swift runtime, Foundation and
 the Swift packages SAMLHarness uses (swift-nio, hummingbird, swift-crypto with BoringSSL,
 swift-certificates, swift-argument-parser, Yams, swift-log, async-http-client, swift-mustache)
 statically; those are Apache-2.0 (Swift, its runtime exception), MIT (Yams) or ISC/OpenSSL
 (BoringSSL).
EOF

# Depends: the shared libraries the two executables load, as dpkg-shlibdeps maps them to packages.
mkdir -p "$work/shlibs/debian"
printf 'Source: samlharness\n\nPackage: samlharness\nArchitecture: amd64\n' >"$work/shlibs/debian/control"
depends="$(cd "$work/shlibs" && dpkg-shlibdeps -O -e"$root/usr/lib/samlharness/samlharness" \
             -e"$root/usr/lib/samlharness/samlh-reference-client" 2>"$work/shlibdeps.err" \
           | sed -n 's/^shlibs:Depends=//p')" || { cat "$work/shlibdeps.err" >&2; die "dpkg-shlibdeps failed"; }
[[ -n $depends ]] || { cat "$work/shlibdeps.err" >&2; die "dpkg-shlibdeps found no dependency"; }
if grep -qi swift <<<"$depends"; then die "Depends names Swift: $depends"; fi
installed_size="$(du -sk --apparent-size "$root/usr" | cut -f1)"
cat >"$root/DEBIAN/control" <<EOF
Package: samlharness
Version: $version
Architecture: amd64
Maintainer: SAMLHarness maintainers <maintainers@users.noreply.a-seed-47491192.example>
Installed-Size: $installed_size
Depends: $depends
Recommends: ca-certificates, openssl
Suggests: krb5-user
Section: devel
Priority: optional
Homepage: https://github.com/samlharness/samlharness
Description: SAML protocol conformance and test harness
 Mock identity and service providers (Shibboleth, AD FS, CAS, SimpleSAMLphp, a
 circulation manager) replay what real ones do, while samlharness drives an auth
 client under test through them, watches every byte it sends, and writes a
 conformance report (JUnit, SARIF, JSON, Markdown, HTML).
 .
 The catalog and profiles are in /usr/share/samlharness; the https scenarios need
 the local test CA: /usr/share/samlharness/scripts/setup-tls.sh. Commit $commit.
EOF
mkdir -p "$out"
rm -f "$out"/samlharness_*_amd64.deb "$out"/samlharness-*-linux-x86_64.tar.gz
deb="$out/samlharness_${version}_amd64.deb"
# zstd (dpkg ≥ 1.21.18: Debian 12, Ubuntu 22.04): 8 s where xz took 30-170 s on 2 shared cores,
# for 61 MB instead of 46.
SOURCE_DATE_EPOCH=$epoch dpkg-deb --root-owner-group -Zzstd -z9 --build "$root" "$deb" >/dev/null
say "wrote ${deb#"$repo"/} ($(du -h "$deb" | cut -f1); installed $((installed_size / 1024)) MB) in $((SECONDS - t)) s"
say "  Depends: $depends"

# ---------------------------------------------------------------------------------------------
# The tarball: the same files under a directory of its own

t=$SECONDS
name="samlharness-$version-linux-x86_64"
tree="$work/tar/$name"
mkdir -p "$tree"
cp -a "$root/usr/." "$tree/"
rm -rf "$tree/share/doc"
packages="$(sed -e 's/([^)]*)//g' -e 's/,/ /g' -e 's/|[^ ]*//g' <<<"$depends" | tr -s ' ' '\n' | grep -v '^libc6$' | sort -u | tr '\n' ' ')"
cat >"$tree/README" <<EOF
samlharness $version ($commit), Linux x86_64: SAML protocol conformance and test harness.

Runtime libraries (Debian 12 / Ubuntu 22.04+ names; the Swift runtime is inside the binaries):
  sudo apt-get install ${packages% } ca-certificates openssl

Put bin/ on PATH (the executables find their data in ../share/samlharness wherever this folder is):
  export PATH="\$PWD/bin:\$PATH"
  samlharness --version
  samlharness run --builtin reference --time-scale 0.1

The https scenarios need the local test CA, once:  bash share/samlharness/scripts/setup-tls.sh
share/samlharness/docs/install.md has the rest (the .deb, the container image, the environment).
EOF
tar --sort=name --mtime="@$epoch" --owner=0 --group=0 --numeric-owner -C "$work/tar" -cf - "$name" | gzip -6n >"$out/$name.tar.gz"
say "wrote ${out#"$repo"/}/$name.tar.gz ($(du -h "$out/$name.tar.gz" | cut -f1)) in $((SECONDS - t)) s"

# ---------------------------------------------------------------------------------------------
# The image

if ((image)); then
  t=$SECONDS
  # shellcheck source=lib/podman.sh
  . scripts/lib/podman.sh
  podman_ready || die "podman does not work here: $podman_problem"
  # The context is the output folder: only the .deb is sent (the repository holds .build).
  podman_build_argv "$out" "localhost/samlharness:$version" "$base_image"
  "${podman_build[@]}" >"$work/image.log" 2>&1 \
    || { tail -40 "$work/image.log" >&2; die "podman build failed"; }
  podman_cmd tag "localhost/samlharness:$version" localhost/samlharness:latest
  say "built image localhost/samlharness:$version ($(podman_cmd image inspect --format '{{.Size}}' "localhost/samlharness:$version" \
    | awk '{ printf "%d MB", $1 / 1048576 }')) in $((SECONDS - t)) s"
fi
say "done in $((SECONDS - started)) s"
