#!/usr/bin/env bash
# The harness's local TLS material, for the scenarios that serve the mocks over https (the
# `tls` and `https-downgrade` knobs). Idempotent: does nothing when everything is in place.
#
#   bash scripts/setup-tls.sh             create (if missing) and trust the local CA
#   bash scripts/setup-tls.sh --no-trust  create only; clients then need SAMLH_CA_FILE
#   bash scripts/setup-tls.sh --uninstall remove the CA from the system store and the files
#
# Like mkcert, the CA is made on this machine and its key never leaves it (mode 0600 under
# $SAMLH_TLS_DIR, default ~/.local/share/samlharness/tls). Unlike mkcert, the CA carries a
# critical X.509 name constraint: the only DNS name it can vouch for is `localhost`, so even
# a leaked key could not impersonate a named site. (No IP constraint: BoringSSL — SwiftNIO
# SSL, AsyncHTTPClient — refuses a chain whose CA constrains IP addresses.) The server certificate (P-256,
# 825 days, SAN IP:127.0.0.1, IP:::1, DNS:localhost) is renewed 30 days before it expires.
#
# Trusting the CA system-wide (/usr/local/share/ca-certificates + update-ca-certificates)
# is what lets clients that read only the system store — FoundationNetworking's URLSession
# on Linux (libcurl with the distribution bundle), curl, OpenSSL — talk to the https mocks.
# Clients with a bundle of their own (Python requests → certifi) get SAMLH_CA_FILE from the
# runner. See docs/tls.md.
set -euo pipefail

dir="${SAMLH_TLS_DIR:-${XDG_DATA_HOME:-$HOME/.local/share}/samlharness/tls}"
system_name="samlharness-local-ca.crt"
system_dir="/usr/local/share/ca-certificates"
sudo=""
if [[ $(id -u) -ne 0 ]]; then sudo="sudo"; fi

case "${1:-}" in
  --uninstall)
    if [[ -f "$system_dir/$system_name" ]]; then
      $sudo rm -f "$system_dir/$system_name"
      $sudo update-ca-certificates --fresh >/dev/null
    fi
    rm -rf "$dir"
    echo "setup-tls: removed the local CA ($dir, $system_dir/$system_name)"
    exit 0 ;;
  --no-trust|"") ;;
  *) echo "setup-tls: unknown option $1 (--no-trust, --uninstall)" >&2; exit 2 ;;
esac

command -v openssl >/dev/null || { echo "setup-tls: openssl is missing (bash scripts/install-deps.sh)" >&2; exit 1; }
mkdir -p "$dir"
chmod 700 "$dir"
umask 077

# The CA's configuration: a CA made from another one (an older script) is made again.
cnf="$(cat <<'EOF'
[req]
distinguished_name = dn
prompt = no
x509_extensions = v3_ca
[dn]
O = SAMLHarness
OU = generated on this machine by scripts/setup-tls.sh
CN = SAMLHarness local test CA
[v3_ca]
basicConstraints = critical, CA:TRUE, pathlen:0
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
nameConstraints = critical, permitted;DNS:localhost
EOF
)"
if [[ ! -f "$dir/ca.pem" || ! -f "$dir/ca.key" ]] || [[ "$(cat "$dir/ca.cnf" 2>/dev/null)" != "$cnf" ]] \
   || ! openssl x509 -in "$dir/ca.pem" -noout -checkend $((30 * 86400)) >/dev/null; then
  printf '%s\n' "$cnf" >"$dir/ca.cnf"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/ca.key" -out "$dir/ca.pem" \
    -days 3650 -config "$dir/ca.cnf" 2>/dev/null
  rm -f "$dir/server.pem"
  echo "setup-tls: created the local CA $dir/ca.pem"
fi

if [[ ! -f "$dir/server.pem" || ! -f "$dir/server.key" ]] || ! openssl x509 -in "$dir/server.pem" -noout -checkend $((30 * 86400)) >/dev/null \
   || ! openssl verify -CAfile "$dir/ca.pem" "$dir/server.pem" >/dev/null 2>&1; then
  printf '%s\n' "basicConstraints = critical, CA:FALSE" "keyUsage = critical, digitalSignature" \
    "extendedKeyUsage = serverAuth" "subjectAltName = IP:127.0.0.1, IP:0:0:0:0:0:0:0:1, DNS:localhost" >"$dir/server.ext"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/server.key" -out "$dir/server.csr" \
    -subj "/O=SAMLHarness/CN=localhost" 2>/dev/null
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -CAcreateserial -days 825 \
    -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
  rm -f "$dir/server.csr"
  echo "setup-tls: issued $dir/server.pem (127.0.0.1, ::1, localhost)"
fi
chmod 644 "$dir/ca.pem" "$dir/server.pem"

if [[ "${1:-}" == "--no-trust" ]]; then
  echo "setup-tls: CA not added to the system store (--no-trust); clients must trust $dir/ca.pem"
  exit 0
fi
if [[ -f "$system_dir/$system_name" ]] && cmp -s "$dir/ca.pem" "$system_dir/$system_name"; then
  echo "setup-tls: the local CA is trusted ($system_dir/$system_name)"
  exit 0
fi
if ! command -v update-ca-certificates >/dev/null; then
  echo "setup-tls: update-ca-certificates is missing; install ca-certificates or trust $dir/ca.pem by hand" >&2
  exit 1
fi
$sudo install -D -m 644 "$dir/ca.pem" "$system_dir/$system_name"
$sudo update-ca-certificates >/dev/null 2>&1
echo "setup-tls: trusted the local CA system-wide ($system_dir/$system_name; undo: bash scripts/setup-tls.sh --uninstall)"
