#!/usr/bin/env bash
# A real Shibboleth SP 3 (Debian's apache2 + libapache2-mod-shib) on loopback, for
# `samlharness attack-sp`'s tests (Tests/HarnessTests/AttackShibbolethTests.swift). No init
# system: Apache and shibd run from their binaries, with every file (configuration, socket,
# pid files, logs) under one directory.
#
#   scripts/setup-shibboleth-sp.sh install
#       Installs apache2 and libapache2-mod-shib with apt, only when missing (idempotent).
#       Needs root (or sudo) and the Debian archive. While apt runs, a temporary
#       /usr/sbin/policy-rc.d (only when there is none) keeps the packages from starting the
#       system's Apache on port 80 or the system's shibd.
#   scripts/setup-shibboleth-sp.sh start DIR --idp-metadata FILE [--port N] [--policy stock|hardened]
#                                       [--setting NAME=VALUE]...
#       Writes the configuration into DIR (templates: Tests/Interop/shibboleth-sp/), starts
#       shibd (which returns once it listens: -w) and Apache on 127.0.0.1:N (default: a free
#       port; tried again on another port if it was taken meanwhile), and writes DIR/ready.env
#       (also printed): PORT, BASE, ACS, SP_ENTITY_ID, IDP_ENTITY_ID, WHOAMI, SESSION,
#       TRANSACTION_LOG, SHIBBOLETH_VERSION, SHIBBOLETH_PACKAGE, APACHE_VERSION, POLICY.
#       FILE is the IdP metadata to trust (`samlharness attack-sp --idp-metadata-out FILE`).
#       --policy stock (default) uses /etc/shibboleth/security-policy.xml as packaged;
#       hardened is a copy with SHA-1 in <ExcludedAlgorithms> and checkCorrelation="true" on
#       the Bearer rule: the two settings that turn Shibboleth's documented policies into
#       refusals.
#       --setting NAME=VALUE (repeatable) flips one real Shibboleth/Apache setting, named as the
#       product names it (on top of --policy; a later one of the same NAME wins):
#         ExcludedAlgorithms=URI URI…   security-policy.xml <ExcludedAlgorithms excludeDefaults="true">URIs</…>
#         checkCorrelation=true|false   <PolicyRule type="Bearer" checkCorrelation="…"/> in the default policy
#         blockUnsolicited=true|false   <PolicyRule type="Bearer" blockUnsolicited="…"/> in the default policy
#                                       (OpenSAML's Bearer rule then also checks correlation)
#         requireSignedAssertions=true|false  the <ApplicationDefaults> attribute (relying-party property)
#         clockSkew=SECONDS             the <SPConfig clockSkew> attribute (default here: 180)
#         homeURL=URL                   the <ApplicationDefaults homeURL> attribute (where an unsolicited
#                                       login with no target lands)
#         LimitRequestBody=BYTES        the Apache directive, server-wide, in the generated apache2.conf
#         ECP=true|false                the <SSO ECP="…"> attribute: the SP answers a client sending
#                                       `Accept: application/vnd.paos+xml` and a PAOS header with a
#                                       PAOS AuthnRequest, and its metadata lists the PAOS ACS
#                                       /Shibboleth.sso/SAML2/ECP (default: off, as packaged)
#       ready.env gains SETTINGS (the settings, ';'-separated) and METADATA (the SP's metadata URL).
#       The SP has credentials (MockIdP/keys/sp-key.pem, sp-cert.pem): its metadata publishes the
#       certificate, and assertions encrypted to it are decrypted.
#   scripts/setup-shibboleth-sp.sh stop DIR
#       Stops the Apache and shibd started in DIR (by their pid files) and waits for them.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TEMPLATES="$ROOT/Tests/Interop/shibboleth-sp"
APACHE=/usr/sbin/apache2
SHIBD=/usr/sbin/shibd
MOD_SHIB=/usr/lib/apache2/modules/mod_shib.so
STOCK_POLICY=/etc/shibboleth/security-policy.xml
SP_KEY="$ROOT/MockIdP/keys/sp-key.pem"
SP_CERT="$ROOT/MockIdP/keys/sp-cert.pem"

die() { echo "setup-shibboleth-sp: $*" >&2; exit 1; }
installed() { [ -x "$APACHE" ] && [ -x "$SHIBD" ] && [ -f "$MOD_SHIB" ] && [ -f "$STOCK_POLICY" ]; }

install_packages() {
    if installed; then
        echo "setup-shibboleth-sp: apache2 and libapache2-mod-shib are installed ($("$SHIBD" -v 2>&1 | head -1))"
        return 0
    fi
    local sudo=""
    if [ "$(id -u)" != 0 ]; then
        command -v sudo >/dev/null && sudo -n true 2>/dev/null || die "installing apache2 libapache2-mod-shib needs root (or password-less sudo)"
        sudo="sudo -n"
    fi
    local guard=""
    if [ ! -e /usr/sbin/policy-rc.d ]; then
        guard=/usr/sbin/policy-rc.d
        printf '#!/bin/sh\n# temporary, from scripts/setup-shibboleth-sp.sh: no daemon starts during apt\nexit 101\n' \
            | $sudo tee "$guard" >/dev/null
        $sudo chmod 0755 "$guard"
        trap '$sudo rm -f "$guard"' EXIT
    fi
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -q
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends apache2 libapache2-mod-shib
    if [ -n "$guard" ]; then $sudo rm -f "$guard"; trap - EXIT; fi
    installed || die "apache2 / libapache2-mod-shib still missing after apt-get install"
    echo "setup-shibboleth-sp: installed $("$SHIBD" -v 2>&1 | head -1)"
}

# free_port
# shellcheck source=lib/ports.sh
. "$ROOT/scripts/lib/ports.sh"

# Waits until process $1 accepts connections on 127.0.0.1:$2 (true) or ends (false), at most 30 s.
wait_listening() {
    local deadline=$(( $(date +%s) + 30 ))
    while [ "$(date +%s)" -lt "$deadline" ]; do
        kill -0 "$1" 2>/dev/null || return 1
        if (exec 3<>"/dev/tcp/127.0.0.1/$2") 2>/dev/null; then kill -0 "$1" 2>/dev/null; return; fi
        sleep 0.05
    done
    return 1
}

sed_escape() { printf '%s' "$1" | sed -e 's/[\\&|]/\\&/g'; } # for a sed replacement with '|' delimiters

fill() { # template → file, @KEY@ replaced
    sed -e "s|@DIR@|$DIR|g" -e "s|@PORT@|$PORT|g" -e "s|@SP_ENTITY_ID@|$SP_ENTITY_ID|g" \
        -e "s|@IDP_ENTITY_ID@|$IDP_ENTITY_ID|g" -e "s|@IDP_METADATA@|$DIR/idp-metadata.xml|g" \
        -e "s|@SECURITY_POLICY@|$SECURITY_POLICY|g" -e "s|@USER_LINES@|$USER_LINES|g" \
        -e "s|@CLOCK_SKEW@|$CLOCK_SKEW|g" -e "s|@SSO_ATTRIBUTES@|$(sed_escape "$SSO_ATTRIBUTES")|g" -e "s|@APP_ATTRIBUTES@|$(sed_escape "$APP_ATTRIBUTES")|g" \
        -e "s|@APACHE_SETTINGS@|$(sed_escape "$APACHE_SETTINGS")|g" "$1" > "$2"
}

# --setting NAME=VALUE → the variables the templates and the policy read. Unknown names and
# malformed values are errors: a misspelt setting is never silently ignored.
apply_setting() {
    local name="${1%%=*}" value="${1#*=}"
    [ "$name" != "$1" ] || die "--setting wants NAME=VALUE, got: $1"
    case "$name" in
        ExcludedAlgorithms)
            printf '%s' "$value" | grep -Eq '^[A-Za-z0-9:/.#_ -]*$' || die "ExcludedAlgorithms: space-separated algorithm URIs, got: $value"
            SET_EXCLUDED="$value" ;;
        checkCorrelation|blockUnsolicited|requireSignedAssertions|ECP)
            case "$value" in true|false) ;; *) die "$name: true or false, got: $value" ;; esac
            case "$name" in
                ECP) SET_ECP="$value" ;;
                checkCorrelation) SET_CORRELATION="$value" ;;
                blockUnsolicited) SET_BLOCK_UNSOLICITED="$value" ;;
                requireSignedAssertions) SET_REQUIRE_SIGNED="$value" ;;
            esac ;;
        clockSkew)
            printf '%s' "$value" | grep -Eq '^[0-9]+$' || die "clockSkew: seconds, got: $value"
            CLOCK_SKEW="$value" ;;
        homeURL)
            printf '%s' "$value" | grep -Eq "^[^\"'<>& ]+$" || die "homeURL: a URL without quotes, <, >, & or spaces, got: $value"
            SET_HOME_URL="$value" ;;
        LimitRequestBody)
            printf '%s' "$value" | grep -Eq '^[0-9]+$' || die "LimitRequestBody: bytes, got: $value"
            SET_LIMIT_REQUEST_BODY="$value" ;;
        *) die "unknown --setting $name (known: ExcludedAlgorithms checkCorrelation blockUnsolicited requireSignedAssertions clockSkew homeURL LimitRequestBody ECP)" ;;
    esac
    SETTINGS="${SETTINGS:+$SETTINGS;}$name=$value"
}

# The security policy file: the packaged one untouched (stock, no policy setting), else a copy
# with <ExcludedAlgorithms> and the default policy's Bearer rule as --policy and --setting say.
write_security_policy() {
    local excluded="" correlation="" block=""
    if [ "$POLICY" = hardened ]; then
        excluded="http://www.w3.org/2000/09/xmldsig#rsa-sha1 http://www.w3.org/2000/09/xmldsig#sha1"
        correlation=true
    elif [ "$POLICY" != stock ]; then
        die "--policy must be stock or hardened"
    fi
    [ -n "$SET_EXCLUDED" ] && excluded="$SET_EXCLUDED"
    [ -n "$SET_CORRELATION" ] && correlation="$SET_CORRELATION"
    [ -n "$SET_BLOCK_UNSOLICITED" ] && block="$SET_BLOCK_UNSOLICITED"
    if [ "$POLICY" = stock ] && [ -z "$SET_EXCLUDED$SET_CORRELATION$SET_BLOCK_UNSOLICITED" ]; then
        SECURITY_POLICY="$STOCK_POLICY"
        return
    fi
    grep -q '<ExcludedAlgorithms excludeDefaults="true"/>' "$STOCK_POLICY" \
        && grep -q '<Policy id="default" validate="false">' "$STOCK_POLICY" \
        || die "$STOCK_POLICY is not the packaged one this script knows how to change"
    local bearer=""
    [ -n "$correlation" ] && bearer="$bearer checkCorrelation=\"$correlation\""
    [ -n "$block" ] && bearer="$bearer blockUnsolicited=\"$block\""
    [ -n "$bearer" ] && bearer="<PolicyRule type=\"Bearer\"$bearer/>"
    if [ "$POLICY" = hardened ] && [ -z "$SET_EXCLUDED$SET_CORRELATION$SET_BLOCK_UNSOLICITED" ]; then
        SECURITY_POLICY="$DIR/security-policy-hardened.xml"
    else
        SECURITY_POLICY="$DIR/security-policy.xml"
    fi
    sed -e "s|<ExcludedAlgorithms excludeDefaults=\"true\"/>|<ExcludedAlgorithms excludeDefaults=\"true\">$(sed_escape "$excluded")</ExcludedAlgorithms>|" \
        -e "s|<Policy id=\"default\" validate=\"false\">|<Policy id=\"default\" validate=\"false\">$(sed_escape "$bearer")|" \
        "$STOCK_POLICY" > "$SECURITY_POLICY"
    chmod 0644 "$SECURITY_POLICY"
}

stop_instance() {
    local dir="$1" pid
    if [ -s "$dir/run/apache2.pid" ] && [ -f "$dir/apache2.conf" ]; then
        pid="$(cat "$dir/run/apache2.pid")"
        kill "$pid" 2>/dev/null || true
        timeout 20 tail --pid="$pid" -f /dev/null 2>/dev/null || true
        rm -f "$dir/run/apache2.pid"
    fi
    if [ -s "$dir/run/shibd.pid" ]; then
        pid="$(cat "$dir/run/shibd.pid")"
        kill "$pid" 2>/dev/null || true
        timeout 20 tail --pid="$pid" -f /dev/null 2>/dev/null || true
        rm -f "$dir/run/shibd.pid"
    fi
}

start_instance() {
    installed || die "apache2 / libapache2-mod-shib are not installed: run $0 install (as root)"
    [ -f "$IDP_METADATA" ] || die "no IdP metadata at $IDP_METADATA (write it with: samlharness attack-sp --idp-metadata-out FILE)"
    IDP_ENTITY_ID="$(sed -n 's/.*entityID="\([^"]*\)".*/\1/p' "$IDP_METADATA" | head -1)"
    [ -n "$IDP_ENTITY_ID" ] || die "$IDP_METADATA names no entityID"
    stop_instance "$DIR"
    mkdir -p "$DIR/run" "$DIR/log" "$DIR/htdocs/secure"
    chmod 0755 "$DIR" "$DIR/run" "$DIR/htdocs" "$DIR/htdocs/secure"
    install -m 0644 "$IDP_METADATA" "$DIR/idp-metadata.xml"
    install -m 0644 "$TEMPLATES/attribute-map.xml" "$DIR/attribute-map.xml"
    install -m 0644 "$TEMPLATES/whoami.shtml" "$DIR/htdocs/secure/whoami.shtml"
    write_security_policy
    install -m 0600 "$SP_KEY" "$DIR/sp-key.pem"
    install -m 0644 "$SP_CERT" "$DIR/sp-cert.pem"
    APP_ATTRIBUTES=""
    [ -n "$SET_REQUIRE_SIGNED" ] && APP_ATTRIBUTES="$APP_ATTRIBUTES requireSignedAssertions=\"$SET_REQUIRE_SIGNED\""
    [ -n "$SET_HOME_URL" ] && APP_ATTRIBUTES="$APP_ATTRIBUTES homeURL=\"$SET_HOME_URL\""
    SSO_ATTRIBUTES=""
    [ -n "$SET_ECP" ] && SSO_ATTRIBUTES=" ECP=\"$SET_ECP\""
    APACHE_SETTINGS="# --setting: none"
    [ -n "$SET_LIMIT_REQUEST_BODY" ] && APACHE_SETTINGS="LimitRequestBody $SET_LIMIT_REQUEST_BODY"
    USER_LINES=""
    if [ "$(id -u)" = 0 ]; then
        USER_LINES="User www-data\nGroup www-data"
        chown -R www-data:www-data "$DIR/log"
    fi
    : > "$DIR/log/transaction.log"
    local attempt apache_pid
    for attempt in 1 2 3 4 5; do
        PORT="${FIXED_PORT:-$(free_port)}"
        BASE="http://127.0.0.1:$PORT"
        SP_ENTITY_ID="$BASE/shibboleth"
        fill "$TEMPLATES/shibboleth2.xml.in" "$DIR/shibboleth2.xml"
        fill "$TEMPLATES/shibd.logger.in" "$DIR/shibd.logger"
        fill "$TEMPLATES/native.logger.in" "$DIR/native.logger"
        fill "$TEMPLATES/apache2.conf.in" "$DIR/apache2.conf"
        sed -i 's|\\n|\n|g' "$DIR/apache2.conf"
        # shibd reads the entity ID and the endpoints (which name the port) at start: on a
        # retry with another port it is started again with the new configuration, or it would
        # judge every Response against the first port's (a FatalProfileException).
        if [ "$attempt" -gt 1 ] && [ -s "$DIR/run/shibd.pid" ]; then
            local old; old="$(cat "$DIR/run/shibd.pid")"
            kill "$old" 2>/dev/null || true
            timeout 20 tail --pid="$old" -f /dev/null 2>/dev/null || true
            rm -f "$DIR/run/shibd.pid"
        fi
        "$SHIBD" -f -c "$DIR/shibboleth2.xml" -p "$DIR/run/shibd.pid" -w 30 \
            || die "shibd did not start; see $DIR/log/shibd.log"
        # In the foreground of a background job: a failure to bind shows as the process
        # ending, and readiness as the port accepting a connection.
        : > "$DIR/log/apache-start.log"
        setsid "$APACHE" -d /etc/apache2 -f "$DIR/apache2.conf" -DFOREGROUND \
            >>"$DIR/log/apache-start.log" 2>&1 </dev/null &
        apache_pid=$!
        if wait_listening "$apache_pid" "$PORT"; then
            echo "$apache_pid" > "$DIR/run/apache2.pid"
            break
        fi
        if [ -n "${FIXED_PORT:-}" ] || ! grep -qi "address already in use" "$DIR/log/apache-start.log" "$DIR/log/apache-error.log" 2>/dev/null; then
            cat "$DIR/log/apache-start.log" >&2
            kill "$apache_pid" 2>/dev/null || true
            stop_instance "$DIR"
            die "Apache did not start; see $DIR/log/apache-error.log"
        fi
    done
    [ -s "$DIR/run/apache2.pid" ] || { stop_instance "$DIR"; die "Apache found no free port"; }
    cat > "$DIR/ready.env" <<ENV
PORT=$PORT
BASE=$BASE
ACS=$BASE/Shibboleth.sso/SAML2/POST
SP_ENTITY_ID=$SP_ENTITY_ID
IDP_ENTITY_ID=$IDP_ENTITY_ID
WHOAMI=$BASE/secure/whoami.shtml
SESSION=$BASE/Shibboleth.sso/Session
TRANSACTION_LOG=$DIR/log/transaction.log
SHIBBOLETH_VERSION=$("$SHIBD" -v 2>&1 | head -1 | awk '{print $2}')
SHIBBOLETH_PACKAGE=$(dpkg-query -W -f='${Version}' libapache2-mod-shib 2>/dev/null || echo unknown)
APACHE_VERSION=$("$APACHE" -v | sed -n 's|^Server version: Apache/\([^ ]*\).*|\1|p')
POLICY=$POLICY
SETTINGS='$SETTINGS'
METADATA=$BASE/Shibboleth.sso/Metadata
ENV
    cat "$DIR/ready.env"
}

command="${1:-}"; shift || true
case "$command" in
    install) install_packages ;;
    start)
        DIR="${1:-}"; shift || true
        [ -n "$DIR" ] || die "usage: $0 start DIR --idp-metadata FILE [--port N] [--policy stock|hardened] [--setting NAME=VALUE]..."
        mkdir -p "$DIR"; DIR="$(cd "$DIR" && pwd)"
        IDP_METADATA=""; FIXED_PORT=""; POLICY=stock; SETTINGS=""; CLOCK_SKEW=180
        SET_EXCLUDED=""; SET_CORRELATION=""; SET_BLOCK_UNSOLICITED=""; SET_REQUIRE_SIGNED=""
        SET_HOME_URL=""; SET_LIMIT_REQUEST_BODY=""; SET_ECP=""
        while [ $# -gt 0 ]; do
            case "$1" in
                --idp-metadata) IDP_METADATA="$2"; shift 2 ;;
                --port) FIXED_PORT="$2"; shift 2 ;;
                --policy) POLICY="$2"; shift 2 ;;
                --setting) apply_setting "${2:-}"; shift 2 ;;
                *) die "unknown argument: $1" ;;
            esac
        done
        start_instance
        ;;
    stop)
        [ -n "${1:-}" ] || die "usage: $0 stop DIR"
        stop_instance "$1"
        ;;
    -h|--help|"") sed -n '2,/^set -euo/p' "$0" | sed '$d' ;;
    *) die "unknown command: $command (install, start, stop)" ;;
esac
