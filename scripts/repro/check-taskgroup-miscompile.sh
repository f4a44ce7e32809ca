#!/usr/bin/env bash
# Compiles scripts/repro/taskgroup-tuple-miscompile.swift at -Onone and -O and says whether
# this toolchain still miscompiles it (exit 0 either way; it documents, it does not gate).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
out="$(mktemp -d)"
trap 'rm -rf "$out"' EXIT
swiftc -parse-as-library -swift-version 6 -Onone "$here/taskgroup-tuple-miscompile.swift" -o "$out/debug"
swiftc -parse-as-library -swift-version 6 -O "$here/taskgroup-tuple-miscompile.swift" -o "$out/release"
debug="$("$out/debug")"; release="$("$out/release")"
echo "$(swiftc --version 2>&1 | head -1)"
echo "-Onone: $debug"
echo "-O:     $release"
if [[ "$debug" == "$release" ]]; then echo "this toolchain compiles it right"; else echo "this toolchain MISCOMPILES it at -O (LoadCommand avoids the pattern)"; fi
