/// A SAML message decoded from an HTTP-Redirect binding URL, with everything needed to check
/// its detached signature against the octets *as they arrived*.
///
/// ```swift
/// let message = try RedirectBinding.decode("https://sp.example.org/acs?SigAlg=…&SAMLResponse=…&Signature=…")
/// message.signedOctets  // "SAMLResponse=…&SigAlg=…", in the specification's order
/// try message.verify(with: verifier)
/// ```
public struct RedirectMessage: Sendable, Equatable {
    /// Request or response, from the parameter name.
    public let kind: SAMLMessageKind
    /// The inflated message bytes (XML as sent; not parsed here).
    public let xml: [UInt8]
    /// The compressed bytes, after base64 decoding.
    public let compressed: [UInt8]
    /// The framing the compressed bytes had (`.raw` unless the sender got it wrong).
    public let framing: RawDeflate.Framing
    /// RelayState, form-decoded, if present.
    public let relayState: String?
    /// SigAlg, form-decoded, if present.
    public let sigAlg: String?
    /// The decoded signature bytes, if present.
    public let signature: [UInt8]?
    /// The octets the signature covers, rebuilt from the raw query text in the order of
    /// saml-bindings-2.0-os §3.4.4.1, whatever the order of the parameters in the URL.
    public let signedOctets: [UInt8]?
    /// Every parameter of the query, in order, raw and decoded.
    public let parameters: [QueryParameter]
    /// Deviations from the strict encoding that were accepted (empty in strict mode).
    public let deviations: [EncodingDeviation]

    /// The message as UTF-8 text.
    public var xmlString: String { String(decoding: xml, as: UTF8.self) }

    /// True when SigAlg and Signature were both present.
    public var isSigned: Bool { signature != nil }

    /// Verifies the detached signature over ``signedOctets``. Throws
    /// ``BindingError/Reason/incompleteSignature`` when the message is not signed.
    public func verify(with verifier: any DetachedVerifier) throws -> Bool {
        guard let signature, let signedOctets, let sigAlg else {
            throw BindingError(.incompleteSignature, "the \(kind.parameterName) URL carries no SigAlg/Signature to verify")
        }
        return try verifier.verify(signature, over: signedOctets, algorithmURI: sigAlg)
    }
}

extension RedirectBinding {
    /// The largest RelayState the binding allows, saml-bindings-2.0-os §3.4.3.
    public static let maxRelayStateBytes = 80

    /// Decodes a URL (`https://…?SAMLRequest=…`) or a bare query string.
    ///
    /// Lenient mode accepts zlib-framed DEFLATE (`redirect.zlib-header`), gzip
    /// (`redirect.gzip-header`), bytes after the stream (`redirect.trailing-data`), a literal `+`
    /// in the message (`redirect.unencoded-plus`), an over-long RelayState
    /// (`redirect.relaystate-too-long`) and every ``LenientBase64`` deviation; strict mode
    /// refuses them. Both modes refuse duplicated SAML parameters (which one was signed?) and
    /// inflate at most `inflateLimit` bytes.
    public static func decode(_ urlOrQuery: String, mode: BindingDecodingMode = .lenient,
                              inflateLimit: Int = RawDeflate.defaultLimit) throws -> RedirectMessage {
        let query = queryPart(of: urlOrQuery)
        let parameters = QueryParameter.parse(query)
        var deviations: [EncodingDeviation] = []
        func note(_ code: String, _ message: String, _ offset: Int?) throws {
            if mode == .strict { throw BindingError(.deviationRefused, "\(code): \(message)", offset: offset) }
            deviations.append(EncodingDeviation(code: code, message: message, offset: offset))
        }
        func single(_ name: String) throws -> QueryParameter? {
            let found = parameters.all(named: name)
            if found.count > 1 {
                throw BindingError(.duplicateParameter,
                                   "`\(name)` appears \(found.count) times; the binding allows one",
                                   offset: found[1].offset)
            }
            return found.first
        }
        let request = try single(SAMLMessageKind.request.parameterName)
        let response = try single(SAMLMessageKind.response.parameterName)
        let kind: SAMLMessageKind
        let messageParameter: QueryParameter
        switch (request, response) {
        case let (r?, nil): (kind, messageParameter) = (.request, r)
        case let (nil, r?): (kind, messageParameter) = (.response, r)
        case (.some, .some):
            throw BindingError(.missingMessage, "both SAMLRequest and SAMLResponse are present")
        case (nil, nil):
            throw BindingError(.missingMessage, "neither SAMLRequest nor SAMLResponse is in the query")
        }
        let relayParameter = try single("RelayState")
        let sigAlgParameter = try single("SigAlg")
        let signatureParameter = try single("Signature")

        // The message: a literal `+` is a base64 `+` the sender forgot to encode; any form
        // decoder would have made it a space, so it is read as `+` and reported.
        let rawMessage = messageParameter.rawValue
        if let plus = rawMessage.utf8.firstIndex(of: UInt8(ascii: "+")) {
            let offset = messageParameter.offset + messageParameter.rawName.utf8.count + 1
                + rawMessage.utf8.distance(from: rawMessage.utf8.startIndex, to: plus)
            try note(EncodingDeviation.Code.redirectUnencodedPlus,
                     "`+` in the \(kind.parameterName) value was not URL-encoded as `%2B` (a form decoder reads it as a space)", offset)
        }
        let base64Text = PercentEncoding.percentDecode(rawMessage, plusAsSpace: false)
        let base64 = try LenientBase64.decode(base64Text, strict: mode == .strict)
        deviations.append(contentsOf: base64.deviations)
        let inflatedMessage: ([UInt8], RawDeflate.Framing, Int)
        do {
            inflatedMessage = try inflateAnyFraming(base64.bytes, limit: inflateLimit)
        } catch let error as BindingError where !base64.deviations.isEmpty && error.reason != .inflateLimitExceeded {
            // The base64 was damaged and repaired before inflating: name that damage, the
            // likelier cause, beside the DEFLATE error.
            throw BindingError(error.reason, error.message + "; the base64 value was damaged first: "
                + base64.deviations.map { "\($0.code): \($0.message)" }.joined(separator: "; "), offset: error.offset)
        }
        let (xml, framing, consumed) = inflatedMessage
        switch framing {
        case .raw: break
        case .zlib:
            try note(EncodingDeviation.Code.redirectZlibHeader,
                     "zlib header (0x\(hex(base64.bytes[0]))\(hex(base64.bytes[1]))) and Adler-32 trailer around the DEFLATE data; saml-bindings-2.0-os §3.4.4.1 wants raw DEFLATE", 0)
        case .gzip:
            try note(EncodingDeviation.Code.redirectGzipHeader,
                     "gzip header (0x1F8B08) around the DEFLATE data; saml-bindings-2.0-os §3.4.4.1 wants raw DEFLATE", 0)
        }
        if consumed < base64.bytes.count {
            try note(EncodingDeviation.Code.redirectTrailingData,
                     "\(base64.bytes.count - consumed) bytes after the end of the compressed stream", consumed)
        }

        let relayState = relayParameter.map(\.value)
        if let relayParameter, relayParameter.value.utf8.count > maxRelayStateBytes {
            try note(EncodingDeviation.Code.redirectRelayStateTooLong,
                     "RelayState is \(relayParameter.value.utf8.count) bytes; saml-bindings-2.0-os §3.4.3 allows \(maxRelayStateBytes)",
                     relayParameter.offset)
        }

        var signature: [UInt8]?
        var signedOctets: [UInt8]?
        switch (sigAlgParameter, signatureParameter) {
        case (nil, nil): break
        case let (sigAlg?, sig?):
            let sigText = PercentEncoding.percentDecode(sig.rawValue, plusAsSpace: false)
            let decoded = try LenientBase64.decode(sigText, strict: mode == .strict)
            deviations.append(contentsOf: decoded.deviations.map {
                EncodingDeviation(code: $0.code, message: "in Signature: " + $0.message, offset: $0.offset)
            })
            signature = decoded.bytes
            // saml-bindings-2.0-os §3.4.4.1: "SAMLRequest=value&RelayState=value&SigAlg=value",
            // the values as they arrived (still URL-encoded), RelayState only when present.
            var parts = [messageParameter.raw]
            if let relayParameter { parts.append(relayParameter.raw) }
            parts.append(sigAlg.raw)
            signedOctets = Array(parts.joined(separator: "&").utf8)
        case (nil, .some):
            throw BindingError(.incompleteSignature, "Signature without SigAlg")
        case let (sigAlg?, nil):
            throw BindingError(.incompleteSignature, "SigAlg without Signature", offset: sigAlg.offset)
        }
        return RedirectMessage(kind: kind, xml: xml, compressed: base64.bytes, framing: framing,
                               relayState: relayState, sigAlg: sigAlgParameter?.value,
                               signature: signature, signedOctets: signedOctets,
                               parameters: parameters, deviations: deviations)
    }

    /// The query of a URL (after `?`, before `#`), or the text itself when it has no `?` and
    /// does not look like a URL.
    static func queryPart(of text: String) -> String {
        // On the UTF-8 view: the delimiters are ASCII, and a walk by Character over a
        // kilobyte-long query showed in issue 25's profile.
        let bytes = text.utf8
        let end = bytes.firstIndex(of: UInt8(ascii: "#")) ?? bytes.endIndex
        if let q = bytes[..<end].firstIndex(of: UInt8(ascii: "?")) { return String(text[bytes.index(after: q)..<end]) }
        let s = text[..<end]
        return s.contains("://") ? "" : String(s)
    }

    /// Inflates raw DEFLATE; when the bytes carry a zlib or gzip header and unwrap as such,
    /// that framing is used (and returned, for the caller to report).
    static func inflateAnyFraming(_ bytes: [UInt8], limit: Int) throws -> ([UInt8], RawDeflate.Framing, Int) {
        let detected = RawDeflate.detectFraming(bytes)
        if detected != .raw {
            do {
                let inflated = try RawDeflate.inflate(bytes, framing: detected, limit: limit)
                return (inflated.bytes, detected, inflated.consumed)
            } catch let error as BindingError where error.reason == .inflateLimitExceeded {
                throw error
            } catch {
                // Not really wrapped: a raw stream that happens to start like a header.
            }
        }
        let inflated = try RawDeflate.inflate(bytes, framing: .raw, limit: limit)
        return (inflated.bytes, .raw, inflated.consumed)
    }

    private static func hex(_ b: UInt8) -> String {
        let s = String(b, radix: 16, uppercase: true)
        return s.count == 1 ? "0" + s : s
    }
}
