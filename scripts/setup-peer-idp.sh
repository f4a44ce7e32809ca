#!/usr/bin/env bash
# Sets up the peer IdP that `samlharness bench --peer simplesamlphp` measures SAMLHarness
# against: Debian 12's SimpleSAMLphp 1.19 with the exampleauth:UserPass test source, served by
# `php -S` on loopback from a private configuration (SIMPLESAMLPHP_CONFIG_DIR), never from
# /etc/simplesamlphp. Idempotent: run it again at will.
#
#   scripts/setup-peer-idp.sh [--dir DIR] [--ecp] [--sp-metadata FILE]
#                                              (default DIR: .build/peer-ssp, gitignored)
#
#   --ecp               also the ECP profile: the hosted IdP gets 'saml20.ecp' => true, so its
#                       SSOService.php takes a SOAP AuthnRequest (PAOS) with HTTP Basic
#                       credentials (modules/saml/lib/IdP/SAML2.php, core:UserPassBase) and its
#                       metadata lists the SOAP SingleSignOnService. Off by default.
#   --sp-metadata FILE  also trust the SPs described in FILE (SAML 2.0 metadata XML, e.g. a
#                       Shibboleth SP's /Shibboleth.sso/Metadata): 'metadata.sources' gets an
#                       'xml' source after the flatfile one (read on every request, so FILE may
#                       be written after php started). Off by default (bench's mock SP only).
#   --oid-attributes    release the attributes under their OID names (urn:oid:…, NameFormat uri,
#                       by a core:AttributeMap authproc), as a Shibboleth SP's attribute map
#                       expects them. Off by default (the names as the auth source has them).
#   (scripts/record-real-chains.sh uses all three, for a real Shibboleth SP.)
#
# What it writes under DIR:
#   config/config.php, config/authsources.php   SimpleSAMLphp configuration
#   metadata/saml20-idp-hosted.php             the IdP (entity ID from its base URL, the
#                                              mock IdP's test key MockIdP/keys/idp-key.pem)
#   metadata/saml20-sp-remote.php              the mock SP, read from the environment that
#                                              bench gives php (SAMLH_PEER_SP_ENTITY_ID,
#                                              SAMLH_PEER_SP_ACS): its ports are ephemeral
#   cert/                                      the key and certificate
#   docroot/simplesaml -> SimpleSAMLphp's www/  so URLs are /simplesaml/… as in the mock's
#                                              simplesamlphp personality
#   sessions/, tmp/, data/, log/               PHP sessions, Twig cache, logs
#   peer.json                                  what bench reads: php, docroot, env, user
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
DIR="$ROOT/.build/peer-ssp"
ECP=false
SP_METADATA=""
OID_ATTRIBUTES=false
while [ $# -gt 0 ]; do
    case "$1" in
        --dir) DIR="$2"; shift 2 ;;
        --ecp) ECP=true; shift ;;
        --oid-attributes) OID_ATTRIBUTES=true; shift ;;
        --sp-metadata) SP_METADATA="$2"; shift 2 ;;
        -h|--help) sed -n 2,36p "$0"; exit 0 ;;
        *) echo "unknown argument: $1" >&2; exit 2 ;;
    esac
done

SSP_WWW=/usr/share/simplesamlphp/www
PEER_USER=peer-alice
PEER_PASSWORD='peer pass+1=ok&%'   # needs form-encoding, like the mock's users

# 1. Packages (idempotent: nothing to do when all three are installed).
installed="$(dpkg-query -W -f='${Status}\n' simplesamlphp php-cli php-xml 2>/dev/null | grep -c 'install ok installed' || true)"
if [ "$installed" != 3 ]; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then SUDO="sudo"; fi
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends simplesamlphp php-cli php-xml
fi
[ -d "$SSP_WWW" ] || { echo "error: $SSP_WWW is missing after installing simplesamlphp" >&2; exit 1; }
PHP="$(command -v php)"
METADATA_SOURCES="['type' => 'flatfile']"
if [ -n "$SP_METADATA" ]; then
    SP_METADATA="$(cd "$(dirname "$SP_METADATA")" && pwd)/$(basename "$SP_METADATA")"
    METADATA_SOURCES="$METADATA_SOURCES, ['type' => 'xml', 'file' => '$SP_METADATA']"
fi

# 2. The private configuration (absolute paths: php runs from anywhere).
mkdir -p "$DIR"/{config,metadata,cert,docroot,sessions,tmp,data,log}
DIR="$(cd "$DIR" && pwd)"
install -m 0644 "$ROOT/MockIdP/keys/idp-cert.pem" "$DIR/cert/idp-cert.pem"
install -m 0600 "$ROOT/MockIdP/keys/idp-key.pem" "$DIR/cert/idp-key.pem"
ln -sfn "$SSP_WWW" "$DIR/docroot/simplesaml"
SALT_FILE="$DIR/secretsalt"
[ -s "$SALT_FILE" ] || head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$SALT_FILE"
SALT="$(cat "$SALT_FILE")"

cat > "$DIR/config/config.php" <<PHP
<?php
// Written by scripts/setup-peer-idp.sh: a SimpleSAMLphp 1.19 IdP for benchmarks on loopback.
\$config = [
    'baseurlpath' => 'simplesaml/',
    'certdir' => '$DIR/cert/',
    'loggingdir' => '$DIR/log/',
    'datadir' => '$DIR/data/',
    'tempdir' => '$DIR/tmp/',
    'metadatadir' => '$DIR/metadata/',
    'metadata.sources' => [$METADATA_SOURCES],
    'technicalcontact_name' => 'SAMLHarness bench',
    'technicalcontact_email' => 'bench@example.org',
    'timezone' => 'UTC',
    'secretsalt' => '$SALT',
    'auth.adminpassword' => '$SALT',
    'admin.protectindexpage' => false,
    'admin.protectmetadata' => false,
    'showerrors' => true,
    'errorreporting' => false,
    'debug' => ['saml' => false, 'backtraces' => false, 'validatexml' => false],
    // Production-like: warnings only, to a file (a real deployment logs at NOTICE).
    'logging.level' => SimpleSAML\Logger::WARNING,
    'logging.handler' => 'file',
    'logging.logfile' => 'simplesamlphp.log',
    'enable.saml20-idp' => true,
    'enable.shib13-idp' => false,
    'enable.adfs-idp' => false,
    'module.enable' => ['exampleauth' => true, 'core' => true, 'saml' => true, 'admin' => true],
    'session.duration' => 8 * 60 * 60,
    'session.datastore.timeout' => 4 * 60 * 60,
    'session.state.timeout' => 60 * 60,
    'session.cookie.name' => 'SimpleSAMLSessionID',
    'session.cookie.lifetime' => 0,
    'session.cookie.path' => '/',
    'session.cookie.domain' => null,
    'session.cookie.secure' => false,
    'session.phpsession.cookiename' => 'SimpleSAML',
    'session.phpsession.savepath' => '$DIR/sessions',
    'session.phpsession.httponly' => true,
    'session.authtoken.cookiename' => 'SimpleSAMLAuthToken',
    'session.rememberme.enable' => false,
    'language.default' => 'en',
    'language.available' => ['en'],
    'theme.use' => 'default',
    'template.cache' => '$DIR/tmp/twig',
    'store.type' => 'phpsession',
    'metadata.sign.enable' => false,
    'proxy' => null,
];
PHP

cat > "$DIR/config/authsources.php" <<PHP
<?php
// exampleauth:UserPass — the test source of SimpleSAMLphp; one user with a known password.
\$config = [
    'admin' => ['core:AdminPassword'],
    'example-userpass' => [
        'exampleauth:UserPass',
        '$PEER_USER:$PEER_PASSWORD' => [
            'uid' => ['$PEER_USER'],
            'mail' => ['alice@example.org'],
            'eduPersonAffiliation' => ['member', 'staff'],
            'givenName' => ['Alice'],
        ],
    ],
];
PHP

cat > "$DIR/metadata/saml20-idp-hosted.php" <<PHP
<?php
// The hosted IdP: entity ID {base}/simplesaml/saml2/idp/metadata.php (__DYNAMIC:1__: its
// metadata URL), the mock IdP's test key, Response and Assertion signed RSA-SHA256.
\$metadata['__DYNAMIC:1__'] = [
    'host' => '__DEFAULT__',
    'privatekey' => 'idp-key.pem',
    'certificate' => 'idp-cert.pem',
    'auth' => 'example-userpass',
    'signature.algorithm' => 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256',
    'saml20.sign.response' => true,
    'saml20.sign.assertion' => true,
    'NameIDFormat' => 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
    'saml20.ecp' => $ECP,
PHP
if [ "$OID_ATTRIBUTES" = true ]; then
    cat >> "$DIR/metadata/saml20-idp-hosted.php" <<'PHP'
    // --oid-attributes: the names a Shibboleth SP's attribute-map.xml knows.
    'attributes.NameFormat' => 'urn:oasis:names:tc:SAML:2.0:attrname-format:uri',
    'authproc' => [
        90 => [
            'class' => 'core:AttributeMap',
            'uid' => 'urn:oid:0.9.2342.19200300.100.1.1',
            'mail' => 'urn:oid:0.9.2342.19200300.100.1.3',
            'givenName' => 'urn:oid:2.5.4.42',
            'eduPersonAffiliation' => 'urn:oid:1.3.6.1.4.1.5923.1.1.1.1',
        ],
    ],
PHP
fi
echo '];' >> "$DIR/metadata/saml20-idp-hosted.php"

cat > "$DIR/metadata/saml20-sp-remote.php" <<'PHP'
<?php
// The mock SP that bench starts: its ports are ephemeral, so bench passes its entity ID and
// ACS URL to php in the environment.
$entityID = getenv('SAMLH_PEER_SP_ENTITY_ID');
$acs = getenv('SAMLH_PEER_SP_ACS');
if ($entityID !== false && $entityID !== '' && $acs !== false && $acs !== '') {
    $metadata[$entityID] = [
        'AssertionConsumerService' => [
            ['Binding' => 'urn:oasis:names:tc:SAML:2.0:bindings:HTTP-POST', 'Location' => $acs, 'index' => 1],
        ],
        'NameIDFormat' => 'urn:oasis:names:tc:SAML:2.0:nameid-format:transient',
        'simplesaml.nameidattribute' => 'uid',
    ];
}
PHP

json_escape() { printf '%s' "$1" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g'; }
cat > "$DIR/peer.json" <<JSON
{
  "name": "simplesamlphp",
  "version": "$(dpkg-query -W -f='${Version}' simplesamlphp 2>/dev/null || echo unknown)",
  "php": "$(json_escape "$PHP")",
  "docroot": "$(json_escape "$DIR/docroot")",
  "configDir": "$(json_escape "$DIR/config")",
  "sessionsDir": "$(json_escape "$DIR/sessions")",
  "username": "$(json_escape "$PEER_USER")",
  "password": "$(json_escape "$PEER_PASSWORD")",
  "ssoPath": "/simplesaml/saml2/idp/SSOService.php",
  "metadataPath": "/simplesaml/saml2/idp/metadata.php"
}
JSON
echo "peer IdP (SimpleSAMLphp) configured in $DIR"
echo "  try: SIMPLESAMLPHP_CONFIG_DIR=$DIR/config $PHP -S 127.0.0.1:8099 -t $DIR/docroot"
echo "  then: samlharness bench --peer simplesamlphp"
