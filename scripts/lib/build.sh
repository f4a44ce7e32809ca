# Sourced: the one release build. Every script that builds the release binaries (run-catalog.sh,
# release-smoke.sh, package.sh, selfcheck.sh, the bench and load scripts) builds them this way,
# into the same .build/release, so CI builds release once and no script rebuilds everything with
# other flags (SwiftPM recompiles every module when the flags change).
#
#   --static-swift-stdlib  the Swift runtime and Foundation linked statically into both
#                          executables: they run on a Debian 12 without Swift (the .deb, the
#                          image), and samlh-reference-client starts without resolving the shared
#                          libraries' symbols (docs/performance.md). The link needs -lcurl:
#                          libcurl4-openssl-dev (scripts/install-deps.sh).
SAMLH_RELEASE_FLAGS=(-c release --static-swift-stdlib)

# release_build [swift build options…]: e.g. `release_build --product samlharness`.
release_build() {
    swift build "${SAMLH_RELEASE_FLAGS[@]}" "$@"
}

# release_bin_dir: where release_build puts the executables (.build/release's real path).
release_bin_dir() {
    swift build "${SAMLH_RELEASE_FLAGS[@]}" --show-bin-path
}
