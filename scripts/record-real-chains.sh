#!/usr/bin/env bash
# Records logins through REAL products on this machine and keeps them as test fixtures
# (Tests/HarnessTests/Fixtures/recorded/real/, see its README.md), for `samlharness import-har`
# (docs/recorded-chains.md). Idempotent: run it again at will; it stops what it started.
#
#   scripts/record-real-chains.sh [record] [--out DIR]   (default DIR: Tests/HarnessTests/Fixtures/recorded/real)
#       Sets up and starts the products, records, writes DIR, stops the products.
#   scripts/record-real-chains.sh record-ecp [--out DIR]
#       Sets up and starts the products, runs the REAL ECP client libraries through the recording
#       proxy (below) and writes only DIR/ssp-shibboleth-ecp.requests-ecp.har and
#       DIR/ssp-shibboleth-ecp-refused.pysaml2.har (the other fixtures are left as they are), stops
#       the products. `record` does this step too. Exit 1 when a client's outcome is not the
#       expected one (requests-ecp: success; pysaml2: failure, see the fixtures' README.md).
#   scripts/record-real-chains.sh check-clients
#       Sets up and starts the products, runs the two walking clients
#       (Tests/Interop/replay_requests_client.py, replay_mechanize_client.py, with .venv-interop)
#       against them directly — no harness — with the right password (must succeed) and a wrong
#       one (must fail), then stops the products. Exit 1 when one of the four runs is not as
#       expected.
#   scripts/record-real-chains.sh start | stop
#       Only starts the products (and prints where they are: WORK/env) / stops them.
#
# The products (Debian 12 packages; setup and versions in the fixtures' README.md):
#   - SimpleSAMLphp 1.19 as the IdP: scripts/setup-peer-idp.sh --ecp --sp-metadata FILE
#     --oid-attributes, under `php -S 127.0.0.1:PORT` (PHP_CLI_SERVER_WORKERS=4), its test source
#     exampleauth:UserPass with user peer-alice / password 'peer pass+1=ok&%' (test only);
#   - Shibboleth SP 3.4 (Apache 2.4 + mod_shib + shibd): scripts/setup-shibboleth-sp.sh start
#     --setting ECP=true, trusting the IdP's metadata (/simplesaml/saml2/idp/metadata.php); the
#     SP's own metadata (/Shibboleth.sso/Metadata, fetched through http://localhost:PORT so its
#     endpoints name that origin) is the IdP's --sp-metadata file.
#   The SP is reached as http://localhost:PORT and the IdP as http://127.0.0.1:PORT: two host
#   names, so a browser keeps their cookies apart (cookies ignore ports).
#
# The recorder (scripts/record_real_chains.py; its docstring lists what each layout changes):
#   - Playwright (PyPI, pinned below) in a private venv .venv-record, installed with
#     PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 and driving Debian's /usr/bin/chromium
#     (executable_path): no browser is downloaded. record_har_path + record_har_content='embed'
#     write NAME.playwright.har; the same traffic is rewritten as NAME.chrome.har (Chrome
#     DevTools' export layout), NAME.firefox.har (Firefox's) and NAME.saml-tracer.json
#     (SAML-tracer's export);
#   - ECP (PAOS) with Python's http.client and a small HAR writer (no browser speaks ECP);
#   - ECP by the real client libraries, unmodified, through their run-contract wrappers
#     (Tests/RealClients/requests_ecp_client.py: requests-ecp; pysaml2_ecp.py: pysaml2's
#     saml2.ecp_client; .venv-real-clients from scripts/setup-real-clients-python.sh, the SAMLH_*
#     environment of docs/running-clients.md): `record_real_chains.py ecp-client` starts a recording
#     HTTP forward proxy (scripts/recording_proxy.py, standard library, 127.0.0.1 port 0), runs the
#     wrapper with http_proxy/HTTP_PROXY pointing at it and no_proxy/NO_PROXY empty (so loopback
#     goes through it too: requests', urllib3's and urllib's traffic alike), and writes every
#     exchange as HAR 1.2 (each redirect hop its own entry, bodies as the bytes that crossed it).
#     It checks that `php -S`'s own log lists the same IdP requests as the proxy saw (nothing went
#     around it) and that each body in the HAR re-encodes to the bytes received (sha256).
#
# Needs root (apt) the first time; everything else stays under WORK (.build/record-real,
# gitignored): the IdP's and the SP's configuration, logs, pid files.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
WORK="$ROOT/.build/record-real"
OUT="$ROOT/Tests/HarnessTests/Fixtures/recorded/real"
VENV="$ROOT/.venv-record"
PLAYWRIGHT_VERSION=1.65.2
CHROMIUM=/usr/bin/chromium
USERNAME=peer-alice
PASSWORD='peer pass+1=ok&%'
WRONG_PASSWORD='not the password'

die() { echo "record-real-chains: $*" >&2; exit 1; }

# free_port
# shellcheck source=lib/ports.sh
. "$ROOT/scripts/lib/ports.sh"

install_all() {
    # SimpleSAMLphp, php-cli, php-xml: setup-peer-idp.sh installs them (apt) when missing.
    "$ROOT/scripts/setup-shibboleth-sp.sh" install >/dev/null
    [ -x "$CHROMIUM" ] || { apt-get install -y -q --no-install-recommends chromium >/dev/null || die "no $CHROMIUM"; }
    if ! "$VENV/bin/python" -c "import playwright, sys; from importlib.metadata import version; sys.exit(version('playwright') != '$PLAYWRIGHT_VERSION')" 2>/dev/null; then
        python3 -m venv "$VENV"
        PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$VENV/bin/pip" install -q "playwright==$PLAYWRIGHT_VERSION"
    fi
}

stop_all() {
    "$ROOT/scripts/setup-shibboleth-sp.sh" stop "$WORK/shib" 2>/dev/null || true
    if [ -s "$WORK/php.pid" ]; then
        local pid; pid="$(cat "$WORK/php.pid")"
        kill -- "-$pid" 2>/dev/null || kill "$pid" 2>/dev/null || true
        timeout 10 tail --pid="$pid" -f /dev/null 2>/dev/null || true
        rm -f "$WORK/php.pid"
    fi
}

start_all() {
    stop_all
    mkdir -p "$WORK"
    # An empty list first: the IdP reads the file on every request, the SP's metadata comes later.
    echo '<EntitiesDescriptor xmlns="urn:oasis:names:tc:SAML:2.0:metadata"/>' > "$WORK/sp-metadata.xml"
    "$ROOT/scripts/setup-peer-idp.sh" --dir "$WORK/ssp" --ecp --sp-metadata "$WORK/sp-metadata.xml" --oid-attributes >/dev/null
    local idp="" idp_port attempt
    # Up to three ports: a port found free can be taken before php binds it ("Address already in
    # use", php exits). Each start is polled until the IdP serves its metadata, php exits, or 60 s
    # pass (a loaded CI machine has been slower than the 10 s this once allowed).
    rm -f "$WORK/idp-metadata.xml"
    for attempt in 1 2 3; do
        idp_port="$(free_port)"
        # The php server's own process group (setsid), so stop_all ends it and its workers.
        SIMPLESAMLPHP_CONFIG_DIR="$WORK/ssp/config" PHP_CLI_SERVER_WORKERS=4 \
            setsid php -S "127.0.0.1:$idp_port" -t "$WORK/ssp/docroot" >"$WORK/php.log" 2>&1 </dev/null &
        local pid=$!
        echo "$pid" > "$WORK/php.pid"
        local url="http://127.0.0.1:$idp_port/simplesaml/saml2/idp/metadata.php" deadline=$((SECONDS + 60))
        while [ "$SECONDS" -lt "$deadline" ] && kill -0 "$pid" 2>/dev/null; do
            if curl -fsS --max-time 10 "$url" -o "$WORK/idp-metadata.xml" 2>"$WORK/curl.err" \
                && grep -q entityID "$WORK/idp-metadata.xml"; then
                idp="http://127.0.0.1:$idp_port"
                break 2
            fi
            sleep 0.1
        done
        if kill -0 "$pid" 2>/dev/null; then break; fi   # running but not answering: no other port helps
        echo "record-real-chains: php -S on port $idp_port exited (attempt $attempt): $(tail -n 3 "$WORK/php.log" | tr '\n' ' ')" >&2
        rm -f "$WORK/php.pid"
    done
    if [ -z "$idp" ]; then
        {
            echo "record-real-chains: last curl error: $(cat "$WORK/curl.err" 2>/dev/null)"
            echo "record-real-chains: php.log (last 20 lines):"
            tail -n 20 "$WORK/php.log" 2>/dev/null | sed 's/^/    /'
        } >&2
        stop_all
        die "SimpleSAMLphp did not answer; see $WORK/php.log"
    fi
    "$ROOT/scripts/setup-shibboleth-sp.sh" start "$WORK/shib" --idp-metadata "$WORK/idp-metadata.xml" --setting ECP=true >/dev/null \
        || { stop_all; die "the Shibboleth SP did not start"; }
    # shellcheck disable=SC1091
    local sp_port; sp_port="$(. "$WORK/shib/ready.env"; echo "$PORT")"
    local sp="http://localhost:$sp_port"
    curl -fsS "$sp/Shibboleth.sso/Metadata" -o "$WORK/sp-metadata.xml.new" && mv "$WORK/sp-metadata.xml.new" "$WORK/sp-metadata.xml"
    cat > "$WORK/env" <<ENV
IDP=$idp
IDP_ECP=$idp/simplesaml/saml2/idp/SSOService.php
SP=$sp
START=$sp/secure/whoami.shtml
ENV
    cat "$WORK/env"
}

versions() {
    local v
    for p in simplesamlphp php8.2-cli libapache2-mod-shib shibboleth-sp-utils apache2 chromium; do
        v="$(dpkg-query -W -f='${Version}' "$p" 2>/dev/null || echo missing)"
        echo "$p $v"
    done
    echo "playwright $PLAYWRIGHT_VERSION"
}

REAL_CLIENTS_PY="$ROOT/.venv-real-clients/bin/python"
# client (record_real_chains.py ecp-client --client) and the outcome it has against these products
ECP_CLIENTS=("requests-ecp success" "pysaml2 failure")

# The real ECP client libraries (Tests/RealClients wrappers, unmodified) through the recording proxy;
# the products must be running ($WORK/env). A run with the expected outcome is kept as
# $OUT/ssp-shibboleth-ecp.CLIENT.har (success) or $OUT/ssp-shibboleth-ecp-refused.CLIENT.har (failure).
record_ecp_clients() {
    [ -x "$REAL_CLIENTS_PY" ] || "$ROOT/scripts/setup-real-clients-python.sh"
    # shellcheck disable=SC1091
    . "$WORK/env"
    mkdir -p "$WORK/ecp" "$OUT"
    local failed=0 entry client want rc outcome name
    for entry in "${ECP_CLIENTS[@]}"; do
        client="${entry% *}"; want="${entry#* }"
        rc=0
        python3 "$ROOT/scripts/record_real_chains.py" ecp-client --client "$client" --python "$REAL_CLIENTS_PY" \
            --start "$START" --idp-ecp "$IDP_ECP" --idp-entity-id "$IDP/simplesaml/saml2/idp/metadata.php" \
            --username "$USERNAME" --password "$PASSWORD" --php-log "$WORK/php.log" \
            --out "$WORK/ecp/$client.har" > "$WORK/ecp/$client.json" || rc=$?
        outcome="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["outcome"], "ok" if not d["problems"] else "PROBLEMS", "|", d["error"][:200])' "$WORK/ecp/$client.json")" \
            || outcome="no report"
        case "$outcome" in
            "success ok"*) name="ssp-shibboleth-ecp.$client.har" ;;
            "failure ok"*) name="ssp-shibboleth-ecp-refused.$client.har" ;;
            *) name="" ;;
        esac
        if [ -n "$name" ] && [ "${outcome%% *}" = "$want" ]; then
            cp "$WORK/ecp/$client.har" "$OUT/$name"
            echo "ok   $client ($want expected): $outcome -> $name"
            python3 -c 'import json,sys; print("\n".join("     " + x for x in json.load(open(sys.argv[1]))["exchanges"]))' "$WORK/ecp/$client.json"
        else
            echo "FAIL $client ($want expected): $outcome; see $WORK/ecp/$client.json, $WORK/ecp/$client.har"
            failed=1
        fi
    done
    return "$failed"
}

record_ecp() {
    "$ROOT/scripts/setup-shibboleth-sp.sh" install >/dev/null
    trap stop_all EXIT
    start_all >/dev/null
    record_ecp_clients
}

record() {
    install_all
    trap stop_all EXIT
    start_all
    # shellcheck disable=SC1091
    . "$WORK/env"
    mkdir -p "$OUT"
    "$VENV/bin/python" "$ROOT/scripts/record_real_chains.py" browser --start "$START" --username "$USERNAME" \
        --password "$PASSWORD" --wrong-password "$WRONG_PASSWORD" --out "$OUT" --prefix ssp-shibboleth \
        --chromium "$CHROMIUM" > "$WORK/browser.json"
    cat "$WORK/browser.json"
    "$VENV/bin/python" "$ROOT/scripts/record_real_chains.py" ecp --start "$START" --idp-ecp "$IDP_ECP" \
        --username "$USERNAME" --password "$PASSWORD" --out "$OUT/ssp-shibboleth-ecp.har"
    record_ecp_clients
    versions > "$WORK/versions.txt"
    date -u +%Y-%m-%dT%H:%M:%SZ > "$WORK/recorded-at.txt"
    "$VENV/bin/python" "$ROOT/scripts/record_real_chains.py" summary "$OUT"
    echo "versions:"; cat "$WORK/versions.txt"
    du -ch "$OUT"/*.har "$OUT"/*.json | tail -1
}

check_clients() {
    install_all
    [ -x "$ROOT/.venv-interop/bin/python" ] || "$ROOT/scripts/setup-interop.sh"
    trap stop_all EXIT
    start_all >/dev/null
    # shellcheck disable=SC1091
    . "$WORK/env"
    local failed=0 client password want rc outcome
    for client in replay_requests_client.py replay_mechanize_client.py; do
        for password in "$PASSWORD" "$WRONG_PASSWORD"; do
            want=success; [ "$password" = "$PASSWORD" ] || want=failure
            rc=0
            SAMLH_START_URL="$START" SAMLH_USERNAME="$USERNAME" SAMLH_PASSWORD="$password" \
                SAMLH_RESULT_FILE="$WORK/result.json" SAMLH_REQUEST_TIMEOUT=10 \
                "$ROOT/.venv-interop/bin/python" "$ROOT/Tests/Interop/$client" || rc=$?
            outcome="$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["outcome"], "|", (d["error"] or d["resource"]).replace("\n"," ")[:160])' "$WORK/result.json")"
            local want_rc=0; [ "$want" = success ] || want_rc=1
            if [ "${outcome%% *}" = "$want" ] && [ "$rc" = "$want_rc" ]; then
                echo "ok   $client ($want expected, exit $rc): $outcome"
            else
                echo "FAIL $client ($want expected, exit $rc): $outcome"; failed=1
            fi
        done
    done
    return "$failed"
}

command="${1:-record}"; [ $# -gt 0 ] && shift
while [ $# -gt 0 ]; do
    case "$1" in
        --out) OUT="$(mkdir -p "$2" && cd "$2" && pwd)"; shift 2 ;;
        *) die "unknown argument: $1" ;;
    esac
done
case "$command" in
    record) record ;;
    record-ecp) record_ecp ;;
    check-clients) check_clients ;;
    start) install_all; start_all ;;
    stop) stop_all ;;
    versions) versions ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d' ;;
    *) die "unknown command: $command (record, record-ecp, check-clients, start, stop, versions)" ;;
esac
