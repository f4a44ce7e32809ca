#!/usr/bin/env bash
# The harness's local TLS material, for the scenarios that serve the mocks over https (the
# `tls` and `https-downgrade` knobs). Idempotent: does nothing when everything is in place.
#
#   bash scripts/setup-tls.sh             create (if missing) and trust the local CA
#   bash scripts/setup-tls.sh --no-trust  create only; clients then need SAMLH_CA_FILE
#   bash scripts/setup-tls.sh --uninstall remove the CA from the system store and the files
#
# Like mkcert, the CA is made on this machine and its key never leaves it (mode 0600 under
# $SAMLH_TLS_DIR, default ~/.local/share/samlharness/tls). Unlike mkcert, what it can vouch
# for is narrowed, so a leaked key is worth little:
#   - a critical name constraint: DNS `localhost` (and names under it) only, so no named site;
#     e-mail addresses only under `.invalid` (RFC 6761: no mailbox exists there), so no
#     S/MIME certificate for a real address, in the SAN or in the subject's emailAddress;
#   - extendedKeyUsage serverAuth on the CA itself (and on every leaf): no client
#     certificates, no e-mail protection, no code signing, for clients that check the chain's
#     purposes (OpenSSL, BoringSSL, browsers);
#   - 2 years (730 days), made again 31 days before it ends; a leaf it issues lives at most
#     365 days and ends with the CA at the latest.
# No IP-address constraint: SwiftNIO SSL's BoringSSL (swift-nio-ssl 2.37.6: v3_ncons.cc
# nc_match_single has no iPAddress case) refuses, with X509_V_ERR_UNSUPPORTED_CONSTRAINT_TYPE,
# every IP-address SAN below a CA that constrains IP addresses, permitted or excluded, even
# 127.0.0.1 below 127.0.0.0/8 — and the harness's own clients (AsyncHTTPClient, the `record`
# proxy's upstream check) are built on it. A leaked key can still vouch for an IP-address URL
# (server authentication only, for 2 years at most): keep it here, `--uninstall` when done.
# docs/tls.md has the measurements.
# A CA made by an older version of this script (DNS constraint only, no EKU, 10 years) is told
# by its ca.cnf and by what ca.pem itself says (ca_shape_ok), made again, and the copy in the
# system store replaced; the server certificate and the faults it issued follow. The server
# certificate (P-256, SAN IP:127.0.0.1, IP:::1, DNS:localhost) is renewed 30 days before it
# expires.
#
# Trusting the CA system-wide (/usr/local/share/ca-certificates + update-ca-certificates)
# is what lets clients that read only the system store — FoundationNetworking's URLSession
# on Linux (libcurl with the distribution bundle), curl, OpenSSL — talk to the https mocks.
# Clients with a bundle of their own (Python requests → certifi) get SAMLH_CA_FILE from the
# runner. See docs/tls.md.
#
# It also makes the certificate faults the mocks present under the `tls-FAULT=MOCK` knobs,
# each a chain a client must refuse: faults/FAULT/server.pem is exactly the chain served (leaf
# first), server.key its key. None is trusted anywhere; all name 127.0.0.1, ::1 and localhost
# unless said otherwise, and those valid now are renewed like the server certificate.
#   unknown-ca            from a second CA of its own (faults/unknown-ca/ca.pem), served with it
#   self-signed           a self-signed leaf, alone
#   expired               from the local CA, valid 2020-01-01 to 2021-01-01
#   not-yet-valid         from the local CA, valid 2090-01-01 to 2091-01-01
#   wrong-host            from the local CA for wrong-host.localhost only
#   missing-intermediate  from an intermediate of the local CA (hence pathlen:1) that the chain
#                         leaves out; full-chain.pem adds it, to show the leaf is otherwise good
#   weak-key              from the local CA, with an RSA-1024 key
#   sha1                  from the local CA, signed ecdsa-with-SHA1
# The ones from the local CA (served with it) are made again whenever it changes.
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

# The CA's shape. Its life and the leaves' (days); a leaf never outlives the CA that issued it.
ca_days=730
leaf_max_days=365
# The critical name constraint (RFC 5280 §4.2.1.10): every name in a certificate below this CA
# must fall in a permitted subtree of its type. DNS `localhost` (and names under it); e-mail
# only under `.invalid` (RFC 6761 reserves it: no mailbox exists there, so no e-mail address —
# in the SAN or in the subject's emailAddress — passes). No IP subtree: see the top.
name_constraints="critical, permitted;DNS:localhost, permitted;email:.invalid"
# ca_cnf CN PATHLEN: the configuration of a CA of this shape (the local CA, the unknown-ca fault's).
ca_cnf() {
  printf '%s\n' "# scripts/setup-tls.sh: valid $ca_days days" "[req]" "distinguished_name = dn" "prompt = no" \
    "x509_extensions = v3_ca" "[dn]" "O = SAMLHarness" "OU = generated on this machine by scripts/setup-tls.sh" \
    "CN = $1" "[v3_ca]" "basicConstraints = critical, CA:TRUE, pathlen:$2" "keyUsage = critical, keyCertSign, cRLSign" \
    "extendedKeyUsage = serverAuth" "subjectKeyIdentifier = hash" "nameConstraints = $name_constraints"
}
cnf="$(ca_cnf "SAMLHarness local test CA" 1)"

# epoch PEM startdate|enddate: the certificate's notBefore or notAfter, in seconds since 1970
# (GNU date).
epoch() { date -u -d "$(openssl x509 -in "$1" -noout -"$2" | cut -d= -f2)" +%s; }
# leaf_days CA_PEM: the life of a leaf issued now by that CA: at most leaf_max_days, and it
# ends no later than the CA does.
leaf_days() {
  local left=$(( ($(epoch "$1" enddate) - $(date -u +%s)) / 86400 ))
  echo $(( left < leaf_max_days ? left : leaf_max_days ))
}
# ca_shape_ok PEM KEY CNF: the CA in PEM is what CNF makes today — the same basic constraints,
# key usage, EKU and name constraints as a throwaway CA made from CNF (compared as this openssl
# prints them), valid ca_days days, with KEY as its key. A CA from an older script fails it.
ca_shape_ok() {
  local probe exts="basicConstraints,keyUsage,extendedKeyUsage,nameConstraints" a b
  [[ -f "$1" && -f "$2" ]] || return 1
  a="$(openssl pkey -in "$2" -pubout 2>/dev/null)" && b="$(openssl x509 -in "$1" -noout -pubkey 2>/dev/null)" \
    && [[ -n "$a" && "$a" == "$b" ]] || return 1
  probe="$(mktemp -d)"
  printf '%s\n' "$3" >"$probe/ca.cnf"
  if ! openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$probe/ca.key" -out "$probe/ca.pem" \
      -days 1 -config "$probe/ca.cnf" >/dev/null 2>&1; then
    rm -rf "$probe"; return 1
  fi
  a="$(openssl x509 -in "$1" -noout -ext "$exts" 2>/dev/null)"
  b="$(openssl x509 -in "$probe/ca.pem" -noout -ext "$exts" 2>/dev/null)"
  rm -rf "$probe"
  [[ -n "$a" && "$a" == "$b" ]] && (( $(epoch "$1" enddate) - $(epoch "$1" startdate) == ca_days * 86400 ))
}

# The local CA: made again when missing, when made by another version of this script (its
# ca.cnf or its extensions differ), or 31 days before it ends (a day before its leaves, which
# end with it at the latest, would be renewed: so they are renewed with it).
if [[ "$(cat "$dir/ca.cnf" 2>/dev/null)" != "$cnf" ]] || ! ca_shape_ok "$dir/ca.pem" "$dir/ca.key" "$cnf" \
   || ! openssl x509 -in "$dir/ca.pem" -noout -checkend $((31 * 86400)) >/dev/null; then
  old=""
  if [[ -f "$dir/ca.pem" ]]; then old=" (replacing $(openssl x509 -in "$dir/ca.pem" -noout -fingerprint -sha256 2>/dev/null | cut -d= -f2), made by an older script or about to expire)"; fi
  printf '%s\n' "$cnf" >"$dir/ca.cnf"
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/ca.key" -out "$dir/ca.pem" \
    -days "$ca_days" -config "$dir/ca.cnf" 2>/dev/null
  rm -f "$dir/server.pem" "$dir/ca.srl"
  echo "setup-tls: created the local CA $dir/ca.pem$old"
fi

if [[ ! -f "$dir/server.pem" || ! -f "$dir/server.key" ]] || ! openssl x509 -in "$dir/server.pem" -noout -checkend $((30 * 86400)) >/dev/null \
   || ! openssl verify -purpose sslserver -CAfile "$dir/ca.pem" "$dir/server.pem" >/dev/null 2>&1 \
   || (( $(epoch "$dir/server.pem" enddate) > $(epoch "$dir/ca.pem" enddate) )); then
  printf '%s\n' "basicConstraints = critical, CA:FALSE" "keyUsage = critical, digitalSignature" \
    "extendedKeyUsage = serverAuth" "subjectAltName = IP:127.0.0.1, IP:0:0:0:0:0:0:0:1, DNS:localhost" >"$dir/server.ext"
  openssl req -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout "$dir/server.key" -out "$dir/server.csr" \
    -subj "/O=SAMLHarness/CN=localhost" 2>/dev/null
  openssl x509 -req -in "$dir/server.csr" -CA "$dir/ca.pem" -CAkey "$dir/ca.key" -set_serial "0x$(openssl rand -hex 16)" \
    -days "$(leaf_days "$dir/ca.pem")" -extfile "$dir/server.ext" -out "$dir/server.pem" 2>/dev/null
  rm -f "$dir/server.csr"
  echo "setup-tls: issued $dir/server.pem (127.0.0.1, ::1, localhost)"
fi
chmod 644 "$dir/ca.pem" "$dir/server.pem"

# The certificate faults (see the top). One is made again when its files are incomplete or do
# not fit together, when the local CA changed (faults/ca.sha256: the ones it issued), when this
# recipe changed (faults/recipe.sha256: all) or, for those valid now, 30 days before they expire.
faults="$dir/faults"
fault_names=(unknown-ca self-signed expired not-yet-valid wrong-host missing-intermediate weak-key sha1)
by_trusted_ca=" expired not-yet-valid wrong-host missing-intermediate weak-key sha1 "
san="IP:127.0.0.1, IP:0:0:0:0:0:0:0:1, DNS:localhost"
mkdir -p "$faults"
chmod 700 "$faults"
work="$(mktemp -d)"
trap 'rm -rf "$work" "$faults"/.new-*' EXIT

# Runs an openssl command quietly; on failure shows what it said (never a key: keys go to files).
ossl() {
  if ! openssl "$@" >"$work/out" 2>"$work/err"; then
    echo "setup-tls: openssl $1 failed:" >&2
    cat "$work/err" >&2
    exit 1
  fi
}
# leaf_ext FILE SAN [KEYUSAGE]: the extensions of a server certificate, as server.ext.
leaf_ext() {
  printf '%s\n' "basicConstraints = critical, CA:FALSE" "keyUsage = critical, ${3:-digitalSignature}" \
    "extendedKeyUsage = serverAuth" "subjectKeyIdentifier = hash" "subjectAltName = $2" >"$1"
}
ec_key() { ossl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$1"; }
serial() { echo "0x$(openssl rand -hex 16)"; }
# sign CSR CA_PEM CA_KEY EXT OUT [DIGEST]: issued now, for leaf_days (ending with the CA at the latest).
sign() {
  ossl x509 -req -in "$1" -CA "$2" -CAkey "$3" -set_serial "$(serial)" -days "$(leaf_days "$2")" -"${6:-sha256}" \
    -extfile "$4" -out "$5"
}
# sign_fixed CSR EXT OUT START END: issued by the trusted CA for fixed dates (YYYYMMDDHHMMSSZ),
# through `openssl ca` (OpenSSL 3.0's `x509 -req` cannot set them) and a throwaway database.
sign_fixed() {
  local db="$work/ca-db"
  rm -rf "$db"
  mkdir "$db"
  : >"$db/index.txt"
  openssl rand -hex 16 >"$db/serial"
  printf '%s\n' "[ca]" "default_ca = fault_ca" "[fault_ca]" "database = $db/index.txt" "new_certs_dir = $db" \
    "serial = $db/serial" "default_md = sha256" "policy = any" "email_in_dn = no" "unique_subject = no" \
    "[any]" "organizationName = optional" "organizationalUnitName = optional" "commonName = supplied" >"$db/ca.cnf"
  ossl ca -batch -notext -config "$db/ca.cnf" -cert "$dir/ca.pem" -keyfile "$dir/ca.key" -preserveDN \
    -startdate "$4" -enddate "$5" -extfile "$2" -in "$1" -out "$3"
  rm -rf "$db"
}
# chain LEAF [CERT…]: the leaf (as openssl writes it) and then the given certificates.
chain() { openssl x509 -in "$1"; shift; if [[ $# -gt 0 ]]; then cat "$@"; fi; }

# make_fault NAME DIR: writes the fault's files into DIR.
make_fault() {
  local d="$2" subj="/O=SAMLHarness/OU=certificate fault: $1/CN=localhost"
  case "$1" in
    unknown-ca)
      ca_cnf "SAMLHarness untrusted test CA (never trusted)" 0 >"$work/ca.cnf"
      ec_key "$d/ca.key"
      ossl req -x509 -new -key "$d/ca.key" -days "$ca_days" -set_serial "$(serial)" -config "$work/ca.cnf" -out "$d/ca.pem"
      ec_key "$d/server.key"
      ossl req -new -key "$d/server.key" -subj "$subj" -out "$work/leaf.csr"
      leaf_ext "$work/leaf.ext" "$san"
      sign "$work/leaf.csr" "$d/ca.pem" "$d/ca.key" "$work/leaf.ext" "$work/leaf.pem"
      chain "$work/leaf.pem" "$d/ca.pem" >"$d/server.pem" ;;
    self-signed)
      ec_key "$d/server.key"
      ossl req -new -key "$d/server.key" -subj "$subj" -out "$work/leaf.csr"
      leaf_ext "$work/leaf.ext" "$san"
      ossl x509 -req -in "$work/leaf.csr" -key "$d/server.key" -set_serial "$(serial)" -days "$leaf_max_days" -sha256 \
        -extfile "$work/leaf.ext" -out "$work/leaf.pem"
      chain "$work/leaf.pem" >"$d/server.pem" ;;
    expired|not-yet-valid)
      ec_key "$d/server.key"
      ossl req -new -key "$d/server.key" -subj "$subj" -out "$work/leaf.csr"
      leaf_ext "$work/leaf.ext" "$san"
      printf '%s\n' "authorityKeyIdentifier = keyid" >>"$work/leaf.ext"
      if [[ "$1" == expired ]]; then
        sign_fixed "$work/leaf.csr" "$work/leaf.ext" "$work/leaf.pem" 20200101000000Z 20210101000000Z
      else
        sign_fixed "$work/leaf.csr" "$work/leaf.ext" "$work/leaf.pem" 20900101000000Z 20910101000000Z
      fi
      chain "$work/leaf.pem" "$dir/ca.pem" >"$d/server.pem" ;;
    wrong-host)
      ec_key "$d/server.key"
      ossl req -new -key "$d/server.key" -subj "/O=SAMLHarness/OU=certificate fault: $1/CN=wrong-host.localhost" \
        -out "$work/leaf.csr"
      leaf_ext "$work/leaf.ext" "DNS:wrong-host.localhost"
      sign "$work/leaf.csr" "$dir/ca.pem" "$dir/ca.key" "$work/leaf.ext" "$work/leaf.pem"
      chain "$work/leaf.pem" "$dir/ca.pem" >"$d/server.pem" ;;
    missing-intermediate)
      ec_key "$d/intermediate.key"
      ossl req -new -key "$d/intermediate.key" -out "$work/intermediate.csr" \
        -subj "/O=SAMLHarness/OU=generated on this machine by scripts\/setup-tls.sh/CN=SAMLHarness local test intermediate CA"
      printf '%s\n' "basicConstraints = critical, CA:TRUE, pathlen:0" "keyUsage = critical, keyCertSign, cRLSign" \
        "extendedKeyUsage = serverAuth" "subjectKeyIdentifier = hash" "authorityKeyIdentifier = keyid" >"$work/intermediate.ext"
      sign "$work/intermediate.csr" "$dir/ca.pem" "$dir/ca.key" "$work/intermediate.ext" "$d/intermediate.pem"
      ec_key "$d/server.key"
      ossl req -new -key "$d/server.key" -subj "$subj" -out "$work/leaf.csr"
      leaf_ext "$work/leaf.ext" "$san"
      sign "$work/leaf.csr" "$d/intermediate.pem" "$d/intermediate.key" "$work/leaf.ext" "$work/leaf.pem"
      chain "$work/leaf.pem" >"$d/server.pem"
      chain "$work/leaf.pem" "$d/intermediate.pem" >"$d/full-chain.pem" ;;
    weak-key)
      ossl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:1024 -out "$d/server.key"
      ossl req -new -key "$d/server.key" -subj "$subj" -out "$work/leaf.csr"
      leaf_ext "$work/leaf.ext" "$san" "digitalSignature, keyEncipherment"
      sign "$work/leaf.csr" "$dir/ca.pem" "$dir/ca.key" "$work/leaf.ext" "$work/leaf.pem"
      chain "$work/leaf.pem" "$dir/ca.pem" >"$d/server.pem" ;;
    sha1)
      ec_key "$d/server.key"
      ossl req -new -key "$d/server.key" -subj "$subj" -out "$work/leaf.csr"
      leaf_ext "$work/leaf.ext" "$san"
      sign "$work/leaf.csr" "$dir/ca.pem" "$dir/ca.key" "$work/leaf.ext" "$work/leaf.pem" sha1
      chain "$work/leaf.pem" "$dir/ca.pem" >"$d/server.pem" ;;
  esac
  rm -f "$work"/*.csr "$work"/*.ext "$work"/*.cnf "$work"/*.pem
}

# fault_ok NAME: the fault's files are complete, its key is the leaf's, it chains (whatever
# its dates, digest or key size) to its CA and is served as the recipe says.
key_of_leaf() {
  local a b
  a="$(openssl pkey -in "$1" -pubout 2>/dev/null)" && b="$(openssl x509 -in "$2" -noout -pubkey 2>/dev/null)" \
    && [[ -n "$a" && "$a" == "$b" ]]
}
fresh() { openssl x509 -in "$1" -noout -checkend $((30 * 86400)) >/dev/null 2>&1; }
chains() { openssl verify -no_check_time -auth_level 0 "$@" >/dev/null 2>&1; }
served() { local f="$1"; shift; [[ "$(cat "$f")" == "$(chain "$@" 2>/dev/null)" ]]; }
dates() { [[ "$(openssl x509 -in "$1" -noout -startdate -enddate 2>/dev/null)" == "notBefore=$2"$'\n'"notAfter=$3" ]]; }
by_ca() { chains -CAfile "$dir/ca.pem" "$1/server.pem" && served "$1/server.pem" "$1/server.pem" "$dir/ca.pem"; }
fault_ok() {
  local d="$faults/$1"
  [[ -f "$d/server.pem" && -f "$d/server.key" ]] && key_of_leaf "$d/server.key" "$d/server.pem" || return 1
  case "$1" in
    unknown-ca) [[ -f "$d/ca.key" ]] && key_of_leaf "$d/ca.key" "$d/ca.pem" && fresh "$d/ca.pem" && fresh "$d/server.pem" \
      && chains -CAfile "$d/ca.pem" "$d/server.pem" && served "$d/server.pem" "$d/server.pem" "$d/ca.pem" ;;
    self-signed) fresh "$d/server.pem" && served "$d/server.pem" "$d/server.pem" ;;
    expired) dates "$d/server.pem" "Jan  1 00:00:00 2020 GMT" "Jan  1 00:00:00 2021 GMT" && by_ca "$d" ;;
    not-yet-valid) dates "$d/server.pem" "Jan  1 00:00:00 2090 GMT" "Jan  1 00:00:00 2091 GMT" && by_ca "$d" ;;
    wrong-host|weak-key|sha1) fresh "$d/server.pem" && by_ca "$d" ;;
    missing-intermediate) [[ -f "$d/intermediate.key" && -f "$d/full-chain.pem" ]] \
      && key_of_leaf "$d/intermediate.key" "$d/intermediate.pem" && fresh "$d/intermediate.pem" && fresh "$d/server.pem" \
      && chains -CAfile "$dir/ca.pem" "$d/intermediate.pem" \
      && chains -CAfile "$dir/ca.pem" -untrusted "$d/intermediate.pem" "$d/server.pem" \
      && served "$d/server.pem" "$d/server.pem" && served "$d/full-chain.pem" "$d/server.pem" "$d/intermediate.pem" ;;
  esac
}

ca_sum="$(openssl x509 -in "$dir/ca.pem" -noout -fingerprint -sha256)"
recipe_sum="$({ declare -f make_fault leaf_ext sign sign_fixed chain ca_cnf leaf_days; echo "$san $ca_days $leaf_max_days $name_constraints"; } | openssl dgst -sha256 -r | cut -d' ' -f1)"
new_ca=0 new_recipe=0
[[ "$(cat "$faults/ca.sha256" 2>/dev/null)" == "$ca_sum" ]] || new_ca=1
[[ "$(cat "$faults/recipe.sha256" 2>/dev/null)" == "$recipe_sum" ]] || new_recipe=1
made=()
for fault in "${fault_names[@]}"; do
  if [[ $new_recipe -eq 0 ]] && { [[ $new_ca -eq 0 ]] || [[ "$by_trusted_ca" != *" $fault "* ]]; } && fault_ok "$fault"; then
    continue
  fi
  rm -rf "$faults/.new-$fault"
  mkdir "$faults/.new-$fault"
  make_fault "$fault" "$faults/.new-$fault"
  chmod 600 "$faults/.new-$fault"/*.key
  chmod 644 "$faults/.new-$fault"/*.pem
  rm -rf "$faults/$fault"
  mv "$faults/.new-$fault" "$faults/$fault"
  made+=("$fault")
done
if [[ $new_ca -eq 1 ]]; then printf '%s\n' "$ca_sum" >"$faults/ca.sha256"; fi
if [[ $new_recipe -eq 1 ]]; then printf '%s\n' "$recipe_sum" >"$faults/recipe.sha256"; fi
if [[ ${#made[@]} -gt 0 ]]; then
  echo "setup-tls: made the certificate faults in $faults (${made[*]})"
fi

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
