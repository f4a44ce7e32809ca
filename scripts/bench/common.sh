# Sourced by scripts/bench-ratio.sh and scripts/profile-idp.sh (ROOT set by the caller).

# The team's yardstick when ../shared/bench/ exists, else this repository's copy (built on
# first use); sets BENCH (its directory), LB (login-bench) and MAKE_URL (make-authn-url.py).
bench_client() {
    if [ -x "$ROOT/../shared/bench/ratio.sh" ]; then BENCH="$(cd "$ROOT/../shared/bench" && pwd)"; else BENCH="$ROOT/scripts/bench"; fi
    LB="$BENCH/login-bench"
    [ -w "$BENCH" ] || LB="${BENCH_BIN:-/tmp/bench-bin}/login-bench"
    [ -x "$LB" ] || bash "$BENCH/build.sh" >&2
    MAKE_URL="$BENCH/make-authn-url.py"
}

# The SP both IdPs trust: urn:bench:sp, ACS http://127.0.0.1:8083/acs (nothing listens there:
# the IdP leg ends at the auto-post form), written to $1.
write_bench_sp() {
    cat > "$1" <<'XML'
<md:EntityDescriptor xmlns:md="urn:oasis:names:tc:SAML:2.0:metadata" entityID="urn:bench:sp">
  <md:SPSSODescriptor protocolSupportEnumeration="urn:oasis:names:tc:SAML:2.0:protocol">
    <md:AssertionConsumerService Binding="urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST" Location="http://127.0.0.1:8083/acs" index="0"/>
  </md:SPSSODescriptor>
</md:EntityDescriptor>
XML
}
