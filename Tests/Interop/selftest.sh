#!/usr/bin/env bash
# Self-test of the python3-saml interop scripts (no Swift involved):
#   setup venv -> throwaway IdP/SP keys -> sign with pysaml_sign_response.py ->
#   validate with pysaml_validate_response.py (valid) -> flip one byte of the NameID
#   (invalid) -> verify both signatures with the xmlsec1 CLI -> a few more cases.
# Exits non-zero on the first unexpected outcome. Needs: openssl, xmlsec1 (Debian pkg).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo_root="$(cd "$here/../.." && pwd)"
"$repo_root/scripts/setup-interop.sh"
venv="${SAMLH_INTEROP_VENV:-.venv-interop}"
case "$venv" in /*) ;; *) venv="$repo_root/$venv" ;; esac
py="$venv/bin/python"

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
cd "$work"

fails=0
pass() { echo "ok   - $*"; }
fail() { echo "FAIL - $*"; fails=$((fails + 1)); }

IDP=https://idp.example.test/saml/metadata
SP=https://sp.example.test/saml/metadata
ACS=https://sp.example.test/saml/acs
REQ=_req_3f1c2b
for who in idp sp; do
  openssl req -x509 -newkey rsa:2048 -nodes -keyout "$who.key" -out "$who.crt" -days 2 \
    -subj "/CN=selftest-$who" >/dev/null 2>&1
done

sign() {
  "$py" "$here/pysaml_sign_response.py" --key idp.key --cert idp.crt --issuer "$IDP" \
    --audience "$SP" --recipient "$ACS" --in-response-to "$REQ" \
    --nameid alice@example.com --attr mail=alice@example.com --attr 'groups=admins & <ops>' \
    --attr groups=staff --not-before now-60 --not-on-or-after now+300 --issue-instant now "$@"
}
# validate EXPECTED_EXIT EXPECTED_OUTPUT_PREFIX DESCRIPTION ARGS... FILE
validate() {
  local want_rc="$1" want_prefix="$2" what="$3"; shift 3
  local out rc=0
  out="$("$py" "$here/pysaml_validate_response.py" --idp-cert idp.crt --idp-entity-id "$IDP" \
    --sp-entity-id "$SP" --acs-url "$ACS" "$@" 2>&1)" || rc=$?
  if [[ "$rc" == "$want_rc" && "$out" == "$want_prefix"* ]]; then pass "$what: $out"
  else fail "$what: exit $rc (want $want_rc), output: $out (want prefix: $want_prefix)"; fi
}
# xmlsec1 --verify of one signature (default: the first ds:Signature in the document)
xmlsec_verify() {
  xmlsec1 --verify \
    --id-attr:ID urn:oasis:names:tc:SAML:2.0:protocol:Response \
    --id-attr:ID urn:oasis:names:tc:SAML:2.0:assertion:Assertion \
    --pubkey-cert-pem idp.crt "$@" >xmlsec1.log 2>&1
}
ASSERTION_SIG="//*[local-name()='Assertion']/*[local-name()='Signature']"

# 1. Sign Response and Assertion, validate with the strictest signature settings.
sign --sign both --out signed.xml
validate 0 'valid: nameid=alice@example.com attrs={"groups": ["admins & <ops>", "staff"], "mail": ["alice@example.com"]}' \
  "python3-saml accepts its own signed response" \
  --request-id "$REQ" --want-assertions-signed --want-messages-signed signed.xml

# 2. One byte changed inside the NameID -> invalid.
sed 's|>alice@example.com</saml:NameID>|>alicf@example.com</saml:NameID>|' signed.xml >tampered.xml
if cmp -s signed.xml tampered.xml; then fail "tampering did not change the file"; fi
validate 1 "invalid: Signature validation failed" "NameID changed by one byte" \
  --request-id "$REQ" tampered.xml

# 3. The xmlsec1 CLI (libxmlsec1 1.2.x, OpenSSL) verifies both signatures.
if xmlsec_verify signed.xml; then pass "xmlsec1 verifies the Response signature"
else fail "xmlsec1 rejects the Response signature: $(tail -3 xmlsec1.log)"; fi
if xmlsec_verify --node-xpath "$ASSERTION_SIG" signed.xml; then pass "xmlsec1 verifies the Assertion signature"
else fail "xmlsec1 rejects the Assertion signature: $(tail -3 xmlsec1.log)"; fi
if xmlsec_verify --node-xpath "$ASSERTION_SIG" tampered.xml; then fail "xmlsec1 accepts the tampered Assertion"
else pass "xmlsec1 rejects the tampered Assertion"; fi

# 4. A few more outcomes the Swift tests rely on.
validate 1 "invalid: The InResponseTo of the Response: $REQ, does not match" "wrong request ID" \
  --request-id _other signed.xml
sign --sign response --out resp-only.xml
validate 1 "invalid: The Assertion of the Response is not signed and the SP require it" \
  "response-only signature with wantAssertionsSigned" --want-assertions-signed resp-only.xml
sign --sign none --out unsigned.xml
validate 1 "invalid: No Signature found" "unsigned response" unsigned.xml
sign --sign assertion --encrypt-cert sp.crt --data-alg aes128-gcm --out encrypted.xml
validate 0 "valid: nameid=alice@example.com" "EncryptedAssertion (aes128-gcm, rsa-oaep-mgf1p)" \
  --sp-key sp.key --sp-cert sp.crt --want-assertions-encrypted --want-assertions-signed encrypted.xml
sign --sign both --sig-alg rsa-sha1 --digest-alg sha1 --out sha1.xml
validate 0 "valid:" "rsa-sha1 accepted by default" sha1.xml
validate 1 "invalid: Deprecated signature algorithm found" "rsa-sha1 with --reject-deprecated-algorithm" \
  --reject-deprecated-algorithm sha1.xml

if ((fails)); then echo "selftest: $fails FAILED"; exit 1; fi
echo "selftest: all passed"
