import Foundation
import MockServers
import SAMLCore

/// Rendering a recorded answer: variables filled in, SAML messages re-timed, re-signed and
/// encoded, cookies made to work on plain-http loopback.
extension ReplayEngine {
    func render(_ response: RecordedChain.Response, chain: RecordedChain, state: inout State) throws -> MockResponse {
        let now = clock.now()
        var headers: [(name: String, value: String)] = []
        for header in response.headers {
            var value = try ReplayTemplate.render(header.value) { try resolve($0, state: &state, now: now, chain: chain) }
            if header.name.caseInsensitiveCompare("Set-Cookie") == .orderedSame {
                value = Self.loopbackCookie(value)
                if let pair = value.split(separator: ";", maxSplits: 1).first, let eq = pair.firstIndex(of: "=") {
                    let name = pair[..<eq].trimmingCharacters(in: .whitespaces)
                    state.cookiesSet[name] = pair[pair.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                }
            }
            headers.append((header.name, value))
        }
        var body: [UInt8] = []
        if let text = response.body {
            if response.bodyBase64 == true {
                body = Array(Data(base64Encoded: text) ?? Data())
            } else {
                body = Array(try ReplayTemplate.render(text) { try resolve($0, state: &state, now: now, chain: chain) }.utf8)
            }
        }
        return MockResponse(status: response.status, headers: headers, body: body)
    }

    /// RFC 6265 §4.1.2 on a loopback replay: `Domain` names the recorded host (dropped: the
    /// cookie becomes host-only), `Secure` and `SameSite=None` (which needs Secure) cannot
    /// work over plain http (dropped), `Partitioned` needs Secure (dropped), and a recorded
    /// `Expires` would have passed by now (dropped unless it deletes the cookie: before 2000).
    static func loopbackCookie(_ header: String) -> String {
        let parts = header.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = parts.first else { return header }
        var kept = [first]
        for attribute in parts.dropFirst() {
            let lower = attribute.lowercased()
            if lower.hasPrefix("domain=") || lower == "secure" || lower == "samesite=none" || lower == "partitioned" {
                continue
            }
            if lower.hasPrefix("expires=") {
                let date = String(attribute.dropFirst(8))
                let year = date.split(separator: " ").compactMap { Int($0) }.first { $0 > 1000 }
                    ?? date.split(whereSeparator: { $0 == "-" || $0 == " " }).compactMap { Int($0) }.first { $0 > 1000 }
                if let year, year < 2000 { kept.append(attribute) }
                continue
            }
            kept.append(attribute)
        }
        return kept.joined(separator: "; ")
    }

    /// The text a placeholder stands for now.
    func resolve(_ placeholder: ReplayTemplate.Placeholder, state: inout State, now: Date,
                 chain: RecordedChain? = nil) throws -> String {
        if let name = placeholder.messageName {
            guard let message = (chain ?? self.chain).message(named: name) else { throw ReplayError("no message "
                + "`\(name)`") }
            return try renderMessage(message, filter: placeholder.filter, state: &state, now: now)
        }
        guard let variable = self.chain.variable(named: placeholder.name) else {
            throw ReplayError("no variable `\(placeholder.name)`")
        }
        if variable.kind == .time {
            let date = now.addingTimeInterval(TimeInterval(variable.offset ?? 0))
            switch variable.format {
            case "xs:dateTime-ms": return SAMLDateTime.string(from: date, precision: .milliseconds)
            case "http-date": return Self.httpDate(date)
            default: return SAMLDateTime.string(from: date)
            }
        }
        if let value = state.values[variable.name] { return value }
        let value = variable.shape.map { $0.generate(using: ids) } ?? ids.next()
        state.values[variable.name] = value
        return value
    }

    /// RFC 9110 §5.6.7 IMF-fixdate.
    static func httpDate(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter.string(from: date)
    }

    /// A message rendered, signed as recorded (with the harness keys when re-signing), and
    /// encoded for where it goes: `redirect` is the whole HTTP-Redirect query
    /// (saml-bindings-2.0-os §3.4.4.1), `base64` the HTTP-POST value (§3.5.4).
    func renderMessage(_ message: RecordedChain.Message, filter: ReplayTemplate.Filter?, state: inout State,
                       now: Date) throws -> String {
        let embeddedSignature = message.responseSigned == true || message.assertionSigned == true
        var xml = try ReplayTemplate.render(message.xml) { try resolve($0, state: &state, now: now) }
        if embeddedSignature, chain.resign {
            xml = try sign(xml, message: message)
        }
        let bytes = Array(xml.utf8)
        state.served[message.name] = bytes
        let kind: SAMLMessageKind = message.kind == .request ? .request : .response
        switch filter {
        case .inline:
            return SOAPBinding.withoutXMLDeclaration(xml)
        case .redirect:
            let relay = try message.relayState.map { try ReplayTemplate.render($0) { try resolve($0, state: &state, now: now) } }
            var signer: RedirectSigner?
            if message.redirectSigAlg != nil {
                signer = RedirectSigner(key: message.kind == .request ? keys.spKey : keys.idpKey)
            }
            return try RedirectBinding.encode(bytes, kind: kind, relayState: relay, signer: signer)
        default:
            return PostBinding.encode(bytes)
        }
    }

    /// Signs the rendered XML as the recording was signed: the Assertion(s) first, then the
    /// root (saml-core-2.0-os §5.4.1: an enveloped signature per signed element).
    private func sign(_ xml: String, message: RecordedChain.Message) throws -> String {
        let document = try XMLDocument(parsing: xml)
        let root = document.root
        var elementIDs: [String] = []
        if message.assertionSigned == true {
            elementIDs += root.children("Assertion", SAMLNamespace.assertion).compactMap { $0.attribute("ID") }
        }
        if message.responseSigned == true, let id = root.attribute("ID") { elementIDs.append(id) }
        let signer = message.kind == .request
            ? XMLSigner(key: keys.spKey, certificate: keys.spCertificate)
            : XMLSigner(key: keys.idpKey, certificate: keys.idpCertificate)
        return try signer.sign(xml: xml, elementIDs: elementIDs)
    }
}
