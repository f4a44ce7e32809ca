import Foundation
import MockServers
import SAMLCore

/// Every form in which a real client may put a secret on the wire, and the search for it in
/// one request: a check that looks for a password must find it however it was sent.
///
/// Encodings (the needles): UTF-8 as given, its NFC and NFD forms (RFC 8265 §4.2 wants NFC;
/// clients differ), and Latin-1 (ISO-8859-1: python-requests and OpenJDK encode Basic and
/// Digest credentials so, RFC 7617 §2.1 notwithstanding).
///
/// Places (the haystacks): the request-target raw and percent-decoded (`+` as a space and
/// not), the body raw, percent-decoded and XML-unescaped (a WS-Security `Password`, a SOAP
/// envelope), every header raw and percent-decoded, and the decoded base64 of `Basic`
/// credentials in `Authorization` and `Proxy-Authorization` (RFC 7617 §2). A Digest answer
/// holds no password; ``digestEncoding(_:password:entry:)`` recomputes it instead.
struct SecretForms {
    struct Form {
        /// `UTF-8`, `UTF-8 (NFD)`, `Latin-1 (ISO-8859-1)`…
        let encoding: String
        let bytes: [UInt8]
    }

    /// Where a request carries the secret, and in which encoding.
    struct Found {
        let place: String
        let encoding: String
        var isUTF8: Bool { encoding.hasPrefix("UTF-8") }
    }

    let forms: [Form]

    /// Nil for a secret too short to look for (under 3 bytes it would match by chance).
    init?(_ secret: String) {
        guard secret.utf8.count >= 3 else { return nil }
        var forms: [Form] = []
        func add(_ encoding: String, _ bytes: [UInt8]?) {
            guard let bytes, !forms.contains(where: { $0.bytes == bytes }) else { return }
            forms.append(Form(encoding: encoding, bytes: bytes))
        }
        add("UTF-8", Array(secret.utf8))
        add("UTF-8 (NFC)", Array(secret.precomposedStringWithCanonicalMapping.utf8))
        add("UTF-8 (NFD)", Array(secret.decomposedStringWithCanonicalMapping.utf8))
        add("Latin-1 (ISO-8859-1)", secret.data(using: .isoLatin1).map(Array.init))
        add("Latin-1 (ISO-8859-1)", secret.precomposedStringWithCanonicalMapping.data(using: .isoLatin1).map(Array.init))
        // Encoded twice: the UTF-8 bytes taken for Latin-1 characters and encoded again
        // (a client handed bytes where it wanted text, e.g. Perl's LWP given undecoded bytes).
        if secret.unicodeScalars.contains(where: { !$0.isASCII }) {
            let twice = String(decoding: Array(secret.utf8).map { Unicode.Scalar($0) }.map(Character.init).map { String($0) }.joined().utf8, as: UTF8.self)
            add("UTF-8 encoded twice", Array(twice.utf8))
        }
        self.forms = forms
    }

    /// The encoding `bytes` are of this secret in, if any.
    func encoding(of bytes: [UInt8]) -> String? {
        forms.first { $0.bytes == bytes }?.encoding
    }

    /// Where `entry`'s request-target carries the secret (raw or percent-decoded), if it does.
    func findInURL(_ entry: TrafficEntry) -> Found? {
        let target = entry.request.target
        return search(Array(target.utf8), "the URL")
            ?? search(PercentEncoding.percentDecode(target, plusAsSpace: true), "the URL (percent-encoded)")
            ?? search(PercentEncoding.percentDecode(target, plusAsSpace: false), "the URL (percent-encoded)")
    }

    /// The first place `entry`'s request carries the secret in any form.
    func find(in entry: TrafficEntry) -> Found? {
        let request = entry.request
        for (name, value) in [("Authorization", request.header("Authorization")),
                              ("Proxy-Authorization", request.header("Proxy-Authorization"))] {
            guard let basic = Credentials.basicCredentials(value) else { continue }
            if let found = search(basic.password, "the Basic \(name) header") ?? search(basic.user, "the Basic \(name) header's user-id") {
                return found
            }
        }
        let target = Array(request.target.utf8)
        if let found = search(target, "the URL") ?? search(PercentEncoding.percentDecode(request.target, plusAsSpace: true), "the URL (percent-encoded)")
            ?? search(PercentEncoding.percentDecode(request.target, plusAsSpace: false), "the URL (percent-encoded)") {
            return found
        }
        let body = request.body
        if !body.isEmpty, body.count < 4 << 20 {
            if let found = search(body, "the body") { return found }
            let text = String(decoding: body, as: UTF8.self)
            if body.contains(UInt8(ascii: "%")) || body.contains(UInt8(ascii: "+")) {
                if let found = search(PercentEncoding.percentDecode(text, plusAsSpace: true), "the body (percent-encoded)") { return found }
            }
            if body.contains(UInt8(ascii: "&")), body.first(where: { $0 > 0x20 }) == UInt8(ascii: "<") {
                if let found = search(Array(Credentials.unescapeXML(text).utf8), "the body (XML-escaped)") { return found }
            }
        }
        for header in request.headers where !["authorization", "proxy-authorization"].contains(header.name.lowercased()) {
            if let found = search(Array(header.value.utf8), "the \(header.name) header")
                ?? search(PercentEncoding.percentDecode(header.value, plusAsSpace: false), "the \(header.name) header (percent-encoded)") {
                return found
            }
        }
        return nil
    }

    private func search(_ haystack: [UInt8], _ place: String) -> Found? {
        for form in forms where Self.contains(haystack, form.bytes) {
            return Found(place: place, encoding: form.encoding)
        }
        return nil
    }

    static func contains(_ haystack: [UInt8], _ needle: [UInt8]) -> Bool {
        guard !needle.isEmpty, haystack.count >= needle.count else { return false }
        let first = needle[0]
        var index = 0
        let last = haystack.count - needle.count
        while index <= last {
            if haystack[index] == first, haystack[index..<(index + needle.count)].elementsEqual(needle) { return true }
            index += 1
        }
        return false
    }

    /// The encoding of the password a Digest answer (`Authorization: Digest …`) was computed
    /// over, recomputed with each form (RFC 7616 §3.4.1, §4: UTF-8 under `charset=UTF-8`);
    /// nil when it is not a Digest answer of this user or no form gives its `response`.
    func digestEncoding(_ field: String, username: String?, entry: TrafficEntry) -> String? {
        guard HTTPAuthTraffic.scheme(field).lowercased() == "digest",
              let credentials = try? DigestCredentials.read(AuthParameters.parse(field, expectToken68: false)),
              !credentials.userhash, username == nil || credentials.username == username else { return nil }
        for form in forms {
            let expected = credentials.algorithm.response(
                username: credentials.username, realm: credentials.realm, passwordBytes: form.bytes,
                method: entry.request.method, uri: credentials.uri, nonce: credentials.nonce, nc: credentials.nc,
                cnonce: credentials.cnonce, qop: credentials.qop)
            if credentials.response.lowercased() == expected { return form.encoding }
        }
        return nil
    }
}
