/// The HTTP-POST binding, saml-bindings-2.0-os §3.5: a SAML message base64-encoded (no
/// DEFLATE) in a hidden form field that the browser posts to the recipient.
///
/// ```swift
/// let page = PostBinding.autoSubmitForm(action: acsURL, message: responseXML, kind: .response,
///                                       relayState: "ss:mem:1234")
/// let body = PostBinding.formBody(message: responseXML, kind: .response, relayState: "ss:mem:1234")
/// let decoded = try PostBinding.decode(formBody: body)
/// ```
public enum PostBinding {
    /// saml-bindings-2.0-os §3.5.4: the message is base64-encoded (standard alphabet, one line).
    public static func encode(_ message: [UInt8]) -> String {
        SAMLBase64.encode(message)
    }

    /// Decodes one `SAMLRequest`/`SAMLResponse` value (already form-decoded). Lenient mode
    /// accepts every ``LenientBase64`` deviation and a DEFLATE-compressed message
    /// (`post.deflated`: the Redirect encoding used on the POST binding).
    public static func decode(_ value: String, kind: SAMLMessageKind = .response,
                              relayState: String? = nil, mode: BindingDecodingMode = .lenient,
                              inflateLimit: Int = RawDeflate.defaultLimit) throws -> PostMessage {
        let base64 = try LenientBase64.decode(value, strict: mode == .strict)
        var deviations = base64.deviations
        var xml = base64.bytes
        var inflatedValue: [UInt8]?
        if !looksLikeMarkup(xml), !xml.isEmpty {
            do {
                inflatedValue = try RedirectBinding.inflateAnyFraming(xml, limit: inflateLimit).0
            } catch let error as BindingError where error.reason == .inflateLimitExceeded {
                // A deflate bomb: say so, rather than "not XML" about the compressed bytes.
                throw BindingError(.inflateLimitExceeded, "the value is DEFLATE-compressed and " + error.message, offset: error.offset)
            } catch {
                // Not DEFLATE either: the bytes are judged as they are.
            }
        }
        if let inflated = inflatedValue, looksLikeMarkup(inflated) {
            let message = "the value is DEFLATE-compressed; saml-bindings-2.0-os §3.5.4 wants plain base64 (no compression) on the POST binding"
            if mode == .strict { throw BindingError(.deviationRefused, "\(EncodingDeviation.Code.postDeflated): \(message)", offset: 0) }
            deviations.append(EncodingDeviation(code: EncodingDeviation.Code.postDeflated, message: message, offset: 0))
            xml = inflated
        }
        if let relayState, relayState.utf8.count > RedirectBinding.maxRelayStateBytes {
            let message = "RelayState is \(relayState.utf8.count) bytes; saml-bindings-2.0-os §3.5.3 allows \(RedirectBinding.maxRelayStateBytes)"
            if mode == .strict { throw BindingError(.deviationRefused, "\(EncodingDeviation.Code.postRelayStateTooLong): \(message)") }
            deviations.append(EncodingDeviation(code: EncodingDeviation.Code.postRelayStateTooLong, message: message))
        }
        return PostMessage(kind: kind, xml: xml, relayState: relayState, deviations: deviations)
    }

    /// Decodes an `application/x-www-form-urlencoded` body carrying `SAMLRequest` or
    /// `SAMLResponse` and optionally `RelayState`.
    public static func decode(formBody: String, mode: BindingDecodingMode = .lenient,
                              inflateLimit: Int = RawDeflate.defaultLimit) throws -> PostMessage {
        let parameters = QueryParameter.parse(formBody)
        let found = SAMLMessageKind.allCases.compactMap { kind in parameters.first(named: kind.parameterName).map { (kind, $0) } }
        guard found.count == 1, let (kind, parameter) = found.first else {
            throw BindingError(.missingMessage, found.isEmpty
                ? "neither SAMLRequest nor SAMLResponse is in the form body"
                : "both SAMLRequest and SAMLResponse are in the form body")
        }
        for name in [kind.parameterName, "RelayState"] where parameters.all(named: name).count > 1 {
            throw BindingError(.duplicateParameter, "`\(name)` appears more than once in the form body",
                               offset: parameters.all(named: name)[1].offset)
        }
        return try decode(parameter.value, kind: kind, relayState: parameters.first(named: "RelayState")?.value,
                          mode: mode, inflateLimit: inflateLimit)
    }

    /// The form body a browser posts for this message (WHATWG URL §5.2: `+` → `%2B`,
    /// `/` → `%2F`, `=` → `%3D`), RelayState first as IdPs' forms order it.
    public static func formBody(message: [UInt8], kind: SAMLMessageKind, relayState: String? = nil) -> String {
        var pairs: [(name: String, value: String)] = []
        if let relayState { pairs.append(("RelayState", relayState)) }
        pairs.append((kind.parameterName, encode(message)))
        return QueryParameter.formEncoded(pairs)
    }

    /// The auto-submitting HTML page of saml-bindings-2.0-os §3.5.4: a `post` form to
    /// `action` with hidden `RelayState` and `SAMLRequest`/`SAMLResponse`, submitted by the
    /// body's `onload`, with a `<noscript>` Continue button for browsers without JavaScript.
    /// Every value, the action URL included, is HTML-escaped (``HTMLText/escape(_:)``).
    public static func autoSubmitForm(action: String, message: [UInt8], kind: SAMLMessageKind,
                                      relayState: String? = nil) -> String {
        autoSubmitForm(action: action, encodedMessage: encode(message), kind: kind, relayState: relayState)
    }

    /// Same, with the base64 value given as is (to send a damaged value on purpose).
    public static func autoSubmitForm(action: String, encodedMessage: String, kind: SAMLMessageKind,
                                      relayState: String? = nil) -> String {
        var html = ""
        html.reserveCapacity(encodedMessage.utf8.count + action.utf8.count + (relayState?.utf8.count ?? 0) + 640)
        html += "<!DOCTYPE html>\n<html>\n<head><meta charset=\"utf-8\"><title>Continue</title></head>\n"
        html += "<body onload=\"document.forms[0].submit()\">\n"
        html += "<noscript><p><strong>Note:</strong> Since your browser does not support JavaScript, you must press the Continue button once to proceed.</p></noscript>\n"
        html += "<form method=\"post\" action=\"\(HTMLText.escape(action))\">\n<div>\n"
        if let relayState {
            html += "<input type=\"hidden\" name=\"RelayState\" value=\"\(HTMLText.escape(relayState))\"/>\n"
        }
        html += "<input type=\"hidden\" name=\"\(kind.parameterName)\" value=\"\(HTMLText.escape(encodedMessage))\"/>\n"
        html += "</div>\n<noscript><div><input type=\"submit\" value=\"Continue\"/></div></noscript>\n"
        html += "</form>\n</body>\n</html>\n"
        return html
    }

    /// True when the bytes start (after a BOM and whitespace) with `<`.
    static func looksLikeMarkup(_ bytes: [UInt8]) -> Bool {
        var i = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { i = 3 }
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
        return i < bytes.count && bytes[i] == UInt8(ascii: "<")
    }
}
