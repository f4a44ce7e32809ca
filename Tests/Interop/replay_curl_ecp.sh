#!/bin/sh
# Run-contract client (docs/running-clients.md): a SAML ECP login with curl, the way the
# Shibboleth wiki's "ECP with curl" recipe and scripted ECP clients do it — curl for every
# request, perl for the text surgery on the SOAP envelopes (the SAML elements are moved as
# text, never re-serialized, so their signatures stay intact):
#
#   1. GET SAMLH_START_URL with `Accept: text/html; application/vnd.paos+xml` and the PAOS header;
#      the SP answers a PAOS request: responseConsumerURL, ecp:RelayState, the AuthnRequest;
#   2. POST the AuthnRequest alone in a SOAP envelope to SAMLH_IDP_ECP_URL, text/xml, with
#      HTTP Basic (curl -u: sent with the request, as SimpleSAMLphp requires);
#   3. compare the IdP's ecp:Response AssertionConsumerServiceURL with responseConsumerURL;
#   4. POST the Response and the ecp:RelayState back to it as PAOS, following the SP's redirect
#      (curl -L) to the resource, cookies kept in a jar.
#
# Writes {"outcome", "resource", "error"} to SAMLH_RESULT_FILE; exit 0 on success.
set -u
work=$(mktemp -d) || exit 70
trap 'rm -rf "$work"' EXIT
umask 077
timeout=${SAMLH_REQUEST_TIMEOUT:-10}
paos='ver="urn:liberty:paos:2003-08";"urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp"'

fail() {
  python3 - "$1" "$SAMLH_RESULT_FILE" <<'EOF'
import json, sys
json.dump({"outcome": "failure", "resource": "", "error": sys.argv[1], "details": {"client": "curl-ecp"}},
          open(sys.argv[2], "w"))
EOF
  exit 1
}

# The inner text of the SOAP Body (any prefix), an attribute of an element, a whole element.
body_of() { perl -0777 -ne 'print $1 if /<(?:[\w.-]+:)?Body(?:\s[^>]*)?>\s*(.*?)\s*<\/(?:[\w.-]+:)?Body\s*>/s' "$1"; }
attribute_of() { perl -0777 -ne "print \$1 if /<(?:[\\w.-]+:)?$2\\b[^>]*?\\s$3=\"([^\"]*)\"/s" "$1"; }
element_of() { perl -0777 -ne "print \$1 if /(<(?:[\\w.-]+:)?$2\\b.*?<\\/(?:[\\w.-]+:)?$2\\s*>)/s" "$1"; }

printf 'user = "%s"\n' "$(printf '%s:%s' "$SAMLH_USERNAME" "$SAMLH_PASSWORD" | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g')" \
  >"$work/auth.conf"

# 1. The PAOS request.
curl -sS --max-time "$timeout" -c "$work/jar" -b "$work/jar" \
  -H 'Accept: text/html; application/vnd.paos+xml' -H "PAOS: $paos" \
  -o "$work/paos.xml" -w '%{http_code} %{content_type}' "$SAMLH_START_URL" >"$work/status" 2>"$work/err" \
  || fail "curl: $(cat "$work/err")"
case "$(cat "$work/status")" in
  *paos+xml*) ;;
  *) fail "the SP did not answer a PAOS request: HTTP $(cat "$work/status")" ;;
esac
consumer=$(attribute_of "$work/paos.xml" Request responseConsumerURL)
relay=$(element_of "$work/paos.xml" RelayState)
body_of "$work/paos.xml" >"$work/authn.xml"
[ -s "$work/authn.xml" ] || fail "the PAOS request carries no AuthnRequest"

# 2. The AuthnRequest to the IdP, with Basic.
{
  printf '<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Body>'
  cat "$work/authn.xml"
  printf '</S:Body></S:Envelope>'
} >"$work/to-idp.xml"
code=$(curl -sS --max-time "$timeout" -K "$work/auth.conf" -H 'Content-Type: text/xml; charset=utf-8' \
  --data-binary @"$work/to-idp.xml" -o "$work/idp.xml" -w '%{http_code}' "$SAMLH_IDP_ECP_URL" 2>"$work/err") \
  || fail "curl: $(cat "$work/err")"
[ "$code" = 200 ] || fail "the IdP answered HTTP $code: $(head -c 600 "$work/idp.xml")"
grep -q 'Fault' "$work/idp.xml" && fail "SOAP fault from the IdP: $(head -c 600 "$work/idp.xml")"

# 3. The consumer URL check (SAML 2.0 Profiles §4.2.4.5).
acs=$(attribute_of "$work/idp.xml" Response AssertionConsumerServiceURL)
[ -n "$acs" ] || fail "the IdP's answer has no ecp:Response header"
[ "$acs" = "$consumer" ] || fail "ecp consumer URL mismatch: the IdP names $acs, the SP asked for $consumer"
body_of "$work/idp.xml" >"$work/response.xml"

# 4. The Response back to the SP, then the resource.
{
  printf '<S:Envelope xmlns:S="http://schemas.xmlsoap.org/soap/envelope/"><S:Header>%s</S:Header><S:Body>' "$relay"
  cat "$work/response.xml"
  printf '</S:Body></S:Envelope>'
} >"$work/to-sp.xml"
code=$(curl -sS -L --max-time "$timeout" -c "$work/jar" -b "$work/jar" \
  -H 'Content-Type: application/vnd.paos+xml' -H "PAOS: $paos" \
  --data-binary @"$work/to-sp.xml" -o "$work/resource" -w '%{http_code}' "$acs" 2>"$work/err") \
  || fail "curl: $(cat "$work/err")"
[ "$code" = 200 ] || fail "the SP answered HTTP $code: $(head -c 600 "$work/resource")"

python3 - "$work/resource" "$SAMLH_RESULT_FILE" <<'EOF'
import json, sys
json.dump({"outcome": "success", "resource": open(sys.argv[1], encoding="utf-8", errors="replace").read(), "error": "",
           "details": {"client": "curl-ecp"}}, open(sys.argv[2], "w"))
EOF
