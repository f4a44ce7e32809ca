import Foundation

/// One fuzz input through SAMLCore's decoders and parser: the entry point shared by the
/// `samlh-fuzz` libFuzzer target and the regression test that replays the corpus
/// (docs/fuzzing.md).
///
/// The first byte picks the decoder (``Target``, modulo the number of targets); the rest is
/// what that decoder reads. Every decoder must return or throw: a crash, a trap, a hang or
/// unbounded memory is a finding. A few cheap round trips are checked on the way (encode
/// then decode gives the input back); a broken one traps, so the fuzzer reports it too.
///
/// ```swift
/// FuzzEntry.run(FuzzEntry.input(.redirect, Array("SAMLRequest=fZJN…".utf8)))
/// ```
public enum FuzzEntry {
    /// What the first byte of an input selects.
    public enum Target: UInt8, CaseIterable, Sendable {
        /// HTTP-Redirect URL or query: percent-decoding, base64, raw DEFLATE, signature octets.
        case redirect = 0
        /// One HTTP-POST `SAMLResponse` value: base64 (and the DEFLATE-on-POST deviation).
        case postValue
        /// An HTTP-POST form body (`application/x-www-form-urlencoded`).
        case postForm
        /// Raw bytes inflated as raw DEFLATE, zlib and gzip.
        case inflate
        /// Lenient and strict base64.
        case base64
        /// Query-string parsing and percent-decoding.
        case query
        /// The XML parser with its hostile-input protections, then c14n and serialisation.
        case xml
        /// The SAML message and metadata models read from a parsed document.
        case samlModel
        /// The SP validator against fixed settings: parse, structure, signature, policies.
        case spValidator
        /// The encoding diagnosis of `samlharness decode`: value, NUL, expected value.
        case diagnosis
        /// SOAP envelopes (ECP, PAOS) and the HTML form parser.
        case envelope

        /// Lowercase name, as in seed file names.
        public var name: String { String(describing: self) }
    }

    /// The target an input selects, nil for the empty input.
    public static func target(of input: [UInt8]) -> Target? {
        guard let first = input.first else { return nil }
        return Target.allCases[Int(first) % Target.allCases.count]
    }

    /// An input that runs `payload` through `target` (for seeds and tests).
    public static func input(_ target: Target, _ payload: [UInt8]) -> [UInt8] {
        [target.rawValue] + payload
    }

    /// Runs one input; returns the target it selected.
    @discardableResult
    public static func run(_ input: [UInt8]) -> Target? {
        guard let target = target(of: input) else { return nil }
        let payload = Array(input.dropFirst())
        switch target {
        case .redirect: redirect(payload)
        case .postValue: postValue(payload)
        case .postForm: postForm(payload)
        case .inflate: inflate(payload)
        case .base64: base64(payload)
        case .query: query(payload)
        case .xml: xml(payload)
        case .samlModel: samlModel(payload)
        case .spValidator: _ = validator?.validate(payload)
        case .diagnosis: diagnosis(payload)
        case .envelope: envelope(payload)
        }
        return target
    }

    // MARK: - Bindings

    private static func redirect(_ payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        for mode in [BindingDecodingMode.lenient, .strict] {
            if let message = try? RedirectBinding.decode(text, mode: mode) {
                readModels(message.xml)
            }
        }
        // saml-bindings-2.0-os §3.4.4.1 round trip: what is encoded decodes to the same bytes.
        if let query = try? RedirectBinding.encode(payload, kind: .request, relayState: "rs") {
            let back = try? RedirectBinding.decode(query, mode: .strict)
            check(back?.xml == payload, "Redirect encode/decode round trip changed the message")
        }
    }

    private static func postValue(_ payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        for mode in [BindingDecodingMode.lenient, .strict] {
            if let message = try? PostBinding.decode(text, kind: .response, relayState: "rs", mode: mode) {
                _ = validator?.validate(message.xml)
            }
        }
    }

    private static func postForm(_ payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        for mode in [BindingDecodingMode.lenient, .strict] {
            if let message = try? PostBinding.decode(formBody: text, mode: mode) {
                readModels(message.xml)
            }
        }
    }

    private static func inflate(_ payload: [UInt8]) {
        for framing in [RawDeflate.Framing.raw, .zlib, .gzip] {
            _ = try? RawDeflate.inflate(payload, framing: framing, limit: 64 * 1024)
        }
        _ = try? RedirectBinding.inflateAnyFraming(payload, limit: 64 * 1024)
        if let compressed = try? RawDeflate.compress(payload) {
            let back = try? RawDeflate.decompress(compressed, limit: payload.count)
            check(back == payload, "DEFLATE compress/decompress round trip changed the bytes")
        }
    }

    private static func base64(_ payload: [UInt8]) {
        let lenient = try? LenientBase64.decode(payload)
        if let strict = try? LenientBase64.decode(payload, strict: true) {
            check(strict.deviations.isEmpty && lenient == strict, "strict base64 accepted what lenient reports as deviating")
        }
        let encoded = SAMLBase64.encode(payload)
        check((try? SAMLBase64.decode(encoded)) == payload, "base64 encode/decode round trip changed the bytes")
        _ = SAMLBase64.encode(payload, wrappingAt: 1 + Int(payload.first ?? 75), lineEnding: "\r\n")
    }

    private static func query(_ payload: [UInt8]) {
        let text = String(decoding: payload, as: UTF8.self)
        for parameter in QueryParameter.parse(text) {
            _ = PercentEncoding.percentDecode(parameter.rawValue, plusAsSpace: false)
        }
        _ = PercentEncoding.firstMalformedEscape(in: text)
        _ = PercentEncoding.firstLowercaseEscape(in: text)
        _ = RedirectBinding.queryPart(of: text)
        // WHATWG URL §5.1/§5.2 and RFC 3986 §2.1: decoding what was encoded is the identity.
        check(PercentEncoding.formDecode(PercentEncoding.formEncode(text)) == text, "form encode/decode round trip changed the text")
        check(PercentEncoding.percentDecode(PercentEncoding.queryComponentEncode(text), plusAsSpace: false) == Array(text.utf8),
              "query-component encode/decode round trip changed the text")
    }

    // MARK: - XML and SAML

    private static func xml(_ payload: [UInt8]) {
        guard let document = try? XMLDocument(parsing: payload) else { return }
        document.registerIDs()
        document.root.walk { element in
            _ = element.attributes
            _ = element.text
            _ = element.containsComment
        }
        _ = try? document.canonicalized(.exclusive)
        _ = try? document.root.children.first?.canonicalized(.exclusive)
        _ = document.prettyPrinted()
        _ = try? XMLDocument(parsing: document.serialized())
    }

    private static func samlModel(_ payload: [UInt8]) {
        readModels(payload)
    }

    /// Reads the bytes as every message and metadata model; what reads writes XML that reads
    /// back as the same kind of element.
    private static func readModels(_ bytes: [UInt8]) {
        guard let document = try? XMLDocument(parsing: bytes) else { return }
        let root = document.root
        roundTrip(Response.self, root)
        roundTrip(AuthnRequest.self, root)
        roundTrip(Assertion.self, root)
        roundTrip(LogoutRequest.self, root)
        roundTrip(LogoutResponse.self, root)
        roundTrip(EntityDescriptor.self, root)
        roundTrip(EntitiesDescriptor.self, root)
    }

    private static func roundTrip<T: SAMLElementCodable>(_ type: T.Type, _ element: XMLElement) {
        guard let value = try? T(element: element) else { return }
        let written = value.xml()
        do {
            _ = try T(xml: written)
        } catch {
            check(false, "\(T.self) read from XML wrote XML that does not read back: \(error)")
        }
    }

    /// Fixed SP settings: the committed test IdP key (MockIdP/keys/idp-cert.pem) and the
    /// instant the seed Response was issued at, so the valid seed passes every check.
    static let validator: SPValidator? = {
        guard let certificate = try? Certificate(pem: idpCertificatePEM) else { return nil }
        return SPValidator(configuration: .init(
            idpEntityID: "https://idp.example.org/idp/shibboleth", idpKeys: [certificate.publicKey],
            spEntityID: "https://sp.example.org/shibboleth", acsURL: "https://sp.example.org/Shibboleth.sso/SAML2/POST",
            requestID: "_req1", clock: FixedClock(Date(timeIntervalSince1970: 1_900_000_010))))
    }()

    // MARK: - Diagnosis and envelopes

    private static func diagnosis(_ payload: [UInt8]) {
        let binding: EncodingDiagnoser.Binding = switch (payload.first ?? 0) % 3 {
        case 0: .post
        case 1: .redirect
        default: .unknown
        }
        let rest = payload.dropFirst()
        let nul = rest.firstIndex(of: 0)
        let value = String(decoding: rest[..<(nul ?? rest.endIndex)], as: UTF8.self)
        let expected = nul.map { String(decoding: rest[($0 + 1)...], as: UTF8.self) }
        _ = EncodingDiagnoser.diagnose(value, binding: binding, expected: expected).report
    }

    private static func envelope(_ payload: [UInt8]) {
        _ = try? SOAPBinding.parse(payload)
        _ = try? ECPResponse.parse(payload)
        _ = try? PAOSRequest.parse(payload)
        _ = HTMLFormParser.forms(in: String(decoding: payload, as: UTF8.self))
    }

    /// A broken invariant is a finding: trap so the fuzzer saves the input.
    private static func check(_ condition: Bool, _ message: @autoclosure () -> String) {
        if !condition { fatalError("FuzzEntry invariant: \(message())") }
    }

    /// MockIdP/keys/idp-cert.pem (public; its key signs the seed Response).
    static let idpCertificatePEM = """
        -----BEGIN CERTIFICATE-----
        MIIDDDCCAfSgAwIBAgIBATANBgkqhkiG9w0BAQsFADAfMR0wGwYDVQQDDBRzYW1s
        aGFybmVzcy1pZHAtdGVzdDAeFw0yNjExMjEwNjIzMTdaFw00NjExMTYwNjIzMTda
        MB8xHTAbBgNVBAMMFHNhbWxoYXJuZXNzLWlkcC10ZXN0MIIBIjANBgkqhkiG9w0B
        AQEFAAOCAQ8AMIIBCgKCAQEAo/CERlbMFcOvBzhxTBhrBbXnbso599hLQOTASAuF
        DMboy6hhjhTkm9mfeQuDFqqB9yH1BeSYzXWLX6/KXY4jDpSod5NGVk2W07KucjfT
        1WItdhOqL2ZduepRNasA7GQMHuy5ifmzq36YI0MLXdoGh4aY34vAGnj0ZH+uiMq4
        H2/cCRx4ea+1Giv9YdmRitkF14JwGoedKX4EhmA4k0aP9My5L1KBzqD+SdFMMJH1
        AIcUyXiKVgZPugsqXaA1dEmy1HEBsWfpAlS71zdz4w5mJKZu4+3L6MRs1G2RRpRX
        1RvmxZXWeI05KE4vkm5dkrBffepYlGXrKp3rUT3ZF/vISwIDAQABo1MwUTAdBgNV
        HQ4EFgQUtaIU2no5lWH6riuCpDCEp+rIZwswHwYDVR0jBBgwFoAUtaIU2no5lWH6
        riuCpDCEp+rIZwswDwYDVR0TAQH/BAUwAwEB/zANBgkqhkiG9w0BAQsFAAOCAQEA
        HrH1KJffmvLkm7igBoCafT2JjoRqRYL2EWoEbcy+vq8bZ6oQH/0f/2pSYjlb6O5Z
        CeQQRX5ZD3sPwsjUxxr29XZpVBmzTnUWrZTBPLG1DpxBFDEOkYOSuYlDWeXcpRlH
        HLoENfYKcGxGl2ZQOgRPvC2u7Bmge8KEJqJVBKAxPH6bfxPxM/VBOx2z4BiQQV+0
        i6BLD4dFSyHQOsSHJPklz5NFBqQxExXP3cuRNQ3nNbnw0HFrzLJHGrWehN7nLrsC
        kcoEzSpPaVUCD1ztNoNjOvQYkp86d43uw6tlfpjlVTfYE1ee07QoeWPcXGt+dUn2
        dKY2N+GjKiN48PvnEct2Vg==
        -----END CERTIFICATE-----
        """
}
