#!/usr/bin/env python3
"""Build and sign a SAML 2.0 Response with python3-saml (OneLogin) / python-xmlsec.

Acts as an independent IdP for interop tests: the Swift SP must accept what this
script produces. The XML skeleton is a template shaped like real IdPs' responses;
the signatures are made by OneLogin_Saml2_Utils.add_sign (python-xmlsec), and the
optional encryption by python-xmlsec's EncryptionContext -- never by hand.

Run it with the interpreter of the venv made by scripts/setup-interop.sh.
See Tests/Interop/README.md for the full contract.

Exit status: 0 written; 2 bad arguments or signing/encryption failure (message on stderr).
"""
import argparse
import datetime as dt
import re
import sys
import uuid
from xml.sax.saxutils import escape

from lxml import etree
import xmlsec
from onelogin.saml2.constants import OneLogin_Saml2_Constants as C
from onelogin.saml2.utils import OneLogin_Saml2_Utils
from onelogin.saml2.xml_utils import OneLogin_Saml2_XML

NS_SAML = C.NS_SAML
NS_SAMLP = C.NS_SAMLP
NS_XENC = C.NS_XENC

SIG_ALGS = {
    "rsa-sha1": C.RSA_SHA1,
    "rsa-sha256": C.RSA_SHA256,
    "rsa-sha384": C.RSA_SHA384,
    "rsa-sha512": C.RSA_SHA512,
}
DIGEST_ALGS = {
    "sha1": C.SHA1,
    "sha256": C.SHA256,
    "sha384": C.SHA384,
    "sha512": C.SHA512,
}
DATA_ALGS = {  # block cipher for the EncryptedData
    "aes128-cbc": (xmlsec.Transform.AES128, 128),
    "aes192-cbc": (xmlsec.Transform.AES192, 192),
    "aes256-cbc": (xmlsec.Transform.AES256, 256),
    "aes128-gcm": (xmlsec.Transform.AES128_GCM, 128),
    "aes192-gcm": (xmlsec.Transform.AES192_GCM, 192),
    "aes256-gcm": (xmlsec.Transform.AES256_GCM, 256),
}
KEY_TRANSPORTS = {  # how the session key is wrapped for the SP's certificate
    "rsa-oaep-mgf1p": xmlsec.Transform.RSA_OAEP,
    "rsa-1_5": xmlsec.Transform.RSA_PKCS1,
}

# Shape of a typical IdP response (Okta/Shibboleth/ADFS-like). Every {placeholder} is
# substituted with an XML-escaped value (see esc()); optional parts are pre-rendered.
TEMPLATE = """<samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" ID="{response_id}" Version="2.0" IssueInstant="{issue_instant}"{destination_attr} InResponseTo="{in_response_to}">
  <saml:Issuer>{issuer}</saml:Issuer>
  <samlp:Status>
    <samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/>
  </samlp:Status>
  <saml:Assertion xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" ID="{assertion_id}" Version="2.0" IssueInstant="{issue_instant}">
    <saml:Issuer>{issuer}</saml:Issuer>
    <saml:Subject>
      <saml:NameID Format="{nameid_format}">{nameid}</saml:NameID>
      <saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">
        <saml:SubjectConfirmationData InResponseTo="{in_response_to}" NotOnOrAfter="{not_on_or_after}" Recipient="{recipient}"/>
      </saml:SubjectConfirmation>
    </saml:Subject>
    <saml:Conditions NotBefore="{not_before}" NotOnOrAfter="{not_on_or_after}">
      <saml:AudienceRestriction>
        <saml:Audience>{audience}</saml:Audience>
      </saml:AudienceRestriction>
    </saml:Conditions>
    <saml:AuthnStatement AuthnInstant="{authn_instant}" SessionIndex="{session_index}"{session_nooa_attr}>
      <saml:AuthnContext>
        <saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef>
      </saml:AuthnContext>
    </saml:AuthnStatement>
{attribute_statement}  </saml:Assertion>
</samlp:Response>
"""

ATTRIBUTE_TEMPLATE = """      <saml:Attribute Name="{name}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:basic">
{values}      </saml:Attribute>
"""
VALUE_TEMPLATE = """        <saml:AttributeValue xsi:type="xs:string">{value}</saml:AttributeValue>
"""

_XML_CHAR_RE = re.compile("[^\u0009\u000a\u000d\u0020-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def die(message):
    print("error: " + message, file=sys.stderr)
    raise SystemExit(2)


def esc(value):
    """Escape for use in element content AND in double-quoted attribute values."""
    if _XML_CHAR_RE.search(value):
        die("value contains characters not allowed in XML: %r" % value)
    return escape(value, {'"': "&quot;", "'": "&apos;", "\n": "&#10;", "\r": "&#13;", "\t": "&#9;"})


_REL_RE = re.compile(r"^now(?:([+-])(\d+)([smhd]?))?$")


def saml_time(text):
    """ISO 8601 (offset or Z; naive = UTC) or 'now', 'now+300', 'now-5m' -> SAML xs:dateTime UTC."""
    m = _REL_RE.match(text.strip())
    if m:
        when = dt.datetime.now(dt.timezone.utc)
        if m.group(1):
            secs = int(m.group(2)) * {"": 1, "s": 1, "m": 60, "h": 3600, "d": 86400}[m.group(3)]
            when += dt.timedelta(seconds=secs if m.group(1) == "+" else -secs)
        when = when.replace(microsecond=0)
    else:
        try:
            when = dt.datetime.fromisoformat(text.strip().replace("z", "Z").replace("Z", "+00:00"))
        except ValueError:
            raise argparse.ArgumentTypeError("not an ISO 8601 date-time: %r" % text)
        if when.tzinfo is None:
            when = when.replace(tzinfo=dt.timezone.utc)
        when = when.astimezone(dt.timezone.utc)
    if when.microsecond:
        return when.strftime("%Y-%m-%dT%H:%M:%S.") + "%03dZ" % (when.microsecond // 1000)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def new_id():
    return "_" + uuid.uuid4().hex


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--key", required=True, help="PEM private key of the IdP (signing key)")
    p.add_argument("--cert", required=True, help="PEM certificate of the IdP (put in KeyInfo)")
    p.add_argument("--issuer", required=True, help="IdP entity ID (Response and Assertion Issuer)")
    p.add_argument("--audience", required=True, help="SP entity ID (AudienceRestriction)")
    p.add_argument("--recipient", required=True,
                   help="ACS URL: SubjectConfirmationData/@Recipient and Response/@Destination")
    p.add_argument("--destination", default=None,
                   help="override Response/@Destination (default: --recipient; '' omits the attribute)")
    p.add_argument("--in-response-to", required=True, help="AuthnRequest ID")
    p.add_argument("--nameid", required=True)
    p.add_argument("--nameid-format", default=None,
                   help="default: emailAddress if the NameID contains '@', else unspecified")
    p.add_argument("--attr", action="append", default=[], metavar="NAME=VALUE",
                   help="attribute (repeatable; repeating a name adds values, in order)")
    p.add_argument("--sign", required=True, choices=["response", "assertion", "both", "none"])
    p.add_argument("--not-before", required=True, type=saml_time, help="ISO 8601, or now[+-N[smhd]]")
    p.add_argument("--not-on-or-after", required=True, type=saml_time,
                   help="Conditions and SubjectConfirmationData NotOnOrAfter")
    p.add_argument("--issue-instant", required=True, type=saml_time,
                   help="Response/Assertion IssueInstant and AuthnInstant")
    p.add_argument("--session-index", default=None, help="default: a fresh random ID")
    p.add_argument("--session-not-on-or-after", default=None, type=saml_time)
    p.add_argument("--response-id", default=None, help="default: a fresh random ID")
    p.add_argument("--assertion-id", default=None, help="default: a fresh random ID")
    p.add_argument("--sig-alg", default="rsa-sha256", choices=sorted(SIG_ALGS))
    p.add_argument("--digest-alg", default="sha256", choices=sorted(DIGEST_ALGS))
    p.add_argument("--encrypt-cert", default=None,
                   help="PEM certificate of the SP: wrap the (signed) Assertion in EncryptedAssertion")
    p.add_argument("--data-alg", default="aes256-cbc", choices=sorted(DATA_ALGS))
    p.add_argument("--key-transport", default="rsa-oaep-mgf1p", choices=sorted(KEY_TRANSPORTS))
    p.add_argument("--out", required=True, help="output file ('-' = stdout)")
    return p.parse_args(argv)


def read(path):
    with open(path, "r", encoding="ascii") as f:
        return f.read()


def build_xml(a):
    attrs = {}
    for item in a.attr:
        if "=" not in item:
            die("--attr wants NAME=VALUE, got %r" % item)
        name, value = item.split("=", 1)
        if not name:
            die("--attr with an empty name: %r" % item)
        attrs.setdefault(name, []).append(value)
    if attrs:
        body = "".join(
            ATTRIBUTE_TEMPLATE.format(
                name=esc(name), values="".join(VALUE_TEMPLATE.format(value=esc(v)) for v in values))
            for name, values in attrs.items())
        attribute_statement = "    <saml:AttributeStatement>\n%s    </saml:AttributeStatement>\n" % body
    else:
        attribute_statement = ""
    destination = a.recipient if a.destination is None else a.destination
    nameid_format = a.nameid_format or (C.NAMEID_EMAIL_ADDRESS if "@" in a.nameid else C.NAMEID_UNSPECIFIED)
    return TEMPLATE.format(
        response_id=esc(a.response_id or new_id()),
        assertion_id=esc(a.assertion_id or new_id()),
        issue_instant=esc(a.issue_instant),
        authn_instant=esc(a.issue_instant),
        destination_attr=(' Destination="%s"' % esc(destination)) if destination else "",
        in_response_to=esc(a.in_response_to),
        issuer=esc(a.issuer),
        nameid_format=esc(nameid_format),
        nameid=esc(a.nameid),
        not_before=esc(a.not_before),
        not_on_or_after=esc(a.not_on_or_after),
        recipient=esc(a.recipient),
        audience=esc(a.audience),
        session_index=esc(a.session_index or new_id()),
        session_nooa_attr=(' SessionNotOnOrAfter="%s"' % esc(a.session_not_on_or_after))
        if a.session_not_on_or_after else "",
        attribute_statement=attribute_statement,
    ).encode("utf-8")


def sign(xml_bytes, a, key, cert):
    # add_sign puts the ds:Signature right after the first saml:Issuer of the document it is
    # given and signs that Issuer's parent (enveloped, exc-c14n, X509Data in KeyInfo).
    return OneLogin_Saml2_Utils.add_sign(xml_bytes, key, cert,
                                         sign_algorithm=SIG_ALGS[a.sig_alg],
                                         digest_algorithm=DIGEST_ALGS[a.digest_alg])


def find_assertion(root):
    nodes = root.findall("{%s}Assertion" % NS_SAML)
    if len(nodes) != 1:
        die("expected one Assertion, found %d" % len(nodes))
    return nodes[0]


def encrypt_assertion(root, a):
    assertion = find_assertion(root)
    data_transform, bits = DATA_ALGS[a.data_alg]
    enc_data = xmlsec.template.encrypted_data_create(
        root, data_transform, type=xmlsec.EncryptionType.ELEMENT, ns="xenc")
    xmlsec.template.encrypted_data_ensure_cipher_value(enc_data)
    key_info = xmlsec.template.encrypted_data_ensure_key_info(enc_data, ns="ds")
    enc_key = xmlsec.template.add_encrypted_key(key_info, KEY_TRANSPORTS[a.key_transport])
    xmlsec.template.encrypted_data_ensure_cipher_value(enc_key)
    manager = xmlsec.KeysManager()
    manager.add_key(xmlsec.Key.from_file(a.encrypt_cert, xmlsec.KeyFormat.CERT_PEM, None))
    ctx = xmlsec.EncryptionContext(manager)
    ctx.key = xmlsec.Key.generate(xmlsec.KeyData.AES, bits, xmlsec.KeyDataType.SESSION)
    enc_data = ctx.encrypt_xml(enc_data, assertion)  # replaces the Assertion in the tree
    wrapper = etree.Element("{%s}EncryptedAssertion" % NS_SAML, nsmap={"saml": NS_SAML})
    wrapper.tail = enc_data.tail
    enc_data.tail = None
    enc_data.getparent().replace(enc_data, wrapper)
    wrapper.append(enc_data)


def main(argv):
    a = parse_args(argv)
    try:
        key, cert = read(a.key), read(a.cert)
    except (OSError, UnicodeDecodeError) as err:
        print("error: %s" % err, file=sys.stderr)
        return 2
    xml = build_xml(a)
    try:
        if a.sign in ("assertion", "both"):
            # Sign the Assertion as a document of its own (so add_sign finds *its* Issuer),
            # then put the signed Assertion back; exc-c14n makes this context-independent.
            root = OneLogin_Saml2_XML.to_etree(xml)
            assertion = find_assertion(root)
            signed = OneLogin_Saml2_XML.to_etree(sign(etree.tostring(assertion), a, key, cert))
            signed.tail = assertion.tail
            root.replace(assertion, signed)
            xml = etree.tostring(root)
        if a.encrypt_cert:
            root = OneLogin_Saml2_XML.to_etree(xml)
            encrypt_assertion(root, a)
            xml = etree.tostring(root)
        if a.sign in ("response", "both"):
            xml = sign(xml, a, key, cert)
    except (xmlsec.Error, xmlsec.InternalError, etree.LxmlError, OSError) as err:
        print("error: signing/encryption failed: %s" % err, file=sys.stderr)
        return 2
    if isinstance(xml, str):
        xml = xml.encode("utf-8")
    if not xml.endswith(b"\n"):
        xml += b"\n"
    if a.out == "-":
        sys.stdout.buffer.write(xml)
    else:
        with open(a.out, "wb") as f:
            f.write(xml)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
