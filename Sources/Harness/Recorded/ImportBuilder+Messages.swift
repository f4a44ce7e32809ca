import Foundation
import SAMLCore

/// Finding the SAML messages of a chain and making their templates.
extension ImportBuilder {
    /// Every SAMLRequest/SAMLResponse: in a request's query or form (the client carrying it),
    /// in an answer's `Location` (HTTP-Redirect) or in a form of an answer's body (HTTP-POST).
    mutating func findMessages() {
        for index in entries.indices {
            if let message = requestMessage(entries[index]) {
                if let existing = found.last(where: { $0.rawXML == message.rawXML }) {
                    entries[index].request.carries = existing.name
                } else {
                    var new = message
                    new.name = uniqueMessageName(message.parsed?.snakeName ?? "message")
                    found.append(new)
                    entries[index].request.carries = new.name
                }
            }
            let exchange = entries[index].exchange
            if let location = exchange.responseHeader("Location") ?? exchange.redirectURL,
               location.contains("SAMLRequest=") || location.contains("SAMLResponse=") {
                findRedirectMessage(location, at: index)
            }
            if !entries[index].bodyBase64, let body = entries[index].body,
               body.contains("SAMLResponse") || body.contains("SAMLRequest") {
                findPostMessages(at: index)
            }
            if !entries[index].bodyBase64, let body = entries[index].body, Self.looksLikeSOAP(body) {
                findSOAPMessage(at: index)
            }
        }
    }

    private func requestMessage(_ working: Working) -> FoundMessage? {
        let number = working.number
        if let body = working.exchange.requestBody, Self.looksLikeSOAP(body),
           let (envelope, element) = Self.soapMessage(Array(body.utf8)) {
            return FoundMessage(name: "", kind: element.kind, binding: .soap, entry: number, served: false,
                                relayState: Self.ecpRelayState(envelope), sigAlg: nil,
                                parsed: RecordedMessage(bytes: envelope.body), rawXML: envelope.body)
        }
        if working.queryParams.contains(where: { $0.name == "SAMLRequest" || $0.name == "SAMLResponse" }) {
            if let decoded = try? RedirectBinding.decode(working.exchange.url) {
                return FoundMessage(name: "", kind: decoded.kind == .request ? .request : .response, binding: .redirect,
                                    entry: number, served: false, relayState: decoded.relayState, sigAlg: decoded.sigAlg,
                                    parsed: RecordedMessage(bytes: decoded.xml), rawXML: decoded.xml)
            }
            return tracerMessage(working, binding: .redirect)
        }
        for kind in [SAMLMessageKind.request, .response] {
            guard let value = working.formParams.first(where: { $0.name == kind.parameterName })?.value else { continue }
            let relay = working.formParams.first { $0.name == "RelayState" }?.value
            if let decoded = try? PostBinding.decode(value, kind: kind, relayState: relay) {
                return FoundMessage(name: "", kind: kind == .request ? .request : .response, binding: .post, entry: number,
                                    served: false, relayState: relay, sigAlg: nil,
                                    parsed: RecordedMessage(bytes: decoded.xml), rawXML: decoded.xml)
            }
            return tracerMessage(working, binding: .post)
        }
        return nil
    }

    /// SAML-tracer's own decoding (`saml`), when the value in the file cannot be decoded (its
    /// export filters hash or blank POST values).
    private func tracerMessage(_ working: Working, binding: RecordedChain.Message.Binding) -> FoundMessage? {
        guard let xml = working.exchange.decodedSAML, let parsed = RecordedMessage(bytes: Array(xml.utf8)) else { return nil }
        let relay = working.queryParams.first { $0.name == "RelayState" }?.value
            ?? working.formParams.first { $0.name == "RelayState" }?.value
        let kind: RecordedChain.Message.Kind = parsed.rootName.hasSuffix("Request") ? .request : .response
        return FoundMessage(name: "", kind: kind, binding: binding, entry: working.number, served: false,
                            relayState: relay, sigAlg: nil, parsed: parsed, rawXML: Array(xml.utf8))
    }

    private mutating func findRedirectMessage(_ location: String, at index: Int) {
        let number = entries[index].number
        let decoded: RedirectMessage
        do {
            decoded = try RedirectBinding.decode(location)
        } catch {
            warn(number, "the Location carries a SAML message that cannot be decoded (\(error)); it is replayed "
                + "as recorded")
            return
        }
        let name = uniqueMessageName(RecordedMessage(bytes: decoded.xml)?.snakeName ?? "message")
        found.append(FoundMessage(name: name, kind: decoded.kind == .request ? .request : .response, binding: .redirect,
                                  entry: number, served: true, relayState: decoded.relayState, sigAlg: decoded.sigAlg,
                                  parsed: RecordedMessage(bytes: decoded.xml), rawXML: decoded.xml))
        // The binding's parameters become one placeholder; other parameters stay as they were.
        let base = location.prefix { $0 != "?" }
        let query = location.dropFirst(base.count + 1)
        let others = QueryParameter.parse(String(query)).filter {
            !["SAMLRequest", "SAMLResponse", "RelayState", "SigAlg", "Signature"].contains($0.name)
        }
        let template = ReplayTemplate.escape(String(base)) + "?" + ReplayTemplate.placeholder("msg." + name, .redirect)
            + others.map { "&" + ReplayTemplate.escape($0.raw) }.joined()
        for header in entries[index].headers.indices
        where entries[index].headers[header].name.caseInsensitiveCompare("Location") == .orderedSame {
            entries[index].headers[header].value = template
        }
    }

    private mutating func findPostMessages(at index: Int) {
        guard let template = entries[index].body else { return }
        let text = String(decoding: entries[index].exchange.responseBody ?? [], as: UTF8.self)
        var body = template
        for form in HTMLFormParser.forms(in: text) {
            for kind in [SAMLMessageKind.request, .response] {
                guard let value = form.value(kind.parameterName) else { continue }
                let relay = form.value("RelayState")
                guard let decoded = try? PostBinding.decode(value, kind: kind, relayState: relay) else {
                    warn(entries[index].number, "a form carries a \(kind.parameterName) that cannot be decoded; "
                        + "it is replayed as recorded")
                    continue
                }
                let name = uniqueMessageName(RecordedMessage(bytes: decoded.xml)?.snakeName ?? "message")
                found.append(FoundMessage(name: name, kind: kind == .request ? .request : .response, binding: .post,
                                          entry: entries[index].number, served: true, relayState: relay, sigAlg: nil,
                                          parsed: RecordedMessage(bytes: decoded.xml), rawXML: decoded.xml))
                body = HTMLFieldValue.replace(field: kind.parameterName, in: body,
                                              with: ReplayTemplate.placeholder("msg." + name, .base64))
            }
        }
        entries[index].body = body
    }

    /// A SOAP envelope (ECP's PAOS answers and posts, SOAP to the IdP), by its first bytes.
    static func looksLikeSOAP(_ text: String) -> Bool {
        let head = text.prefix(512)
        return head.contains("Envelope") && (head.contains(SAMLNamespace.soap11) || text.contains(SAMLNamespace.soap11))
    }

    /// The SAML request or response in a SOAP body, with its kind.
    static func soapMessage(_ bytes: [UInt8]) -> (SOAPEnvelope, (kind: RecordedChain.Message.Kind, root: String))? {
        guard let envelope = try? SOAPBinding.parse(bytes), envelope.fault == nil,
              envelope.bodyNamespace == SAMLNamespace.protocol_ else { return nil }
        let kind: RecordedChain.Message.Kind = envelope.bodyName.hasSuffix("Request") ? .request : .response
        return (envelope, (kind, envelope.bodyName))
    }

    /// The text of the `ecp:RelayState` header block (saml-profiles-2.0-os §4.2.4.3).
    static func ecpRelayState(_ envelope: SOAPEnvelope) -> String? {
        guard let block = envelope.headerBlock("RelayState", "urn:oasis:names:tc:SAML:2.0:profiles:SSO:ecp"),
              let document = try? XMLDocument(parsing: block.xml) else { return nil }
        let text = document.root.text
        return text.isEmpty ? nil : text
    }

    /// A SOAP answer carrying a SAML message (the SP's PAOS request, the IdP's ECP response):
    /// the message is found, and the body's content becomes `⟦msg.NAME|inline⟧` in the template.
    private mutating func findSOAPMessage(at index: Int) {
        guard let template = entries[index].body, let bytes = entries[index].exchange.responseBody,
              let (envelope, element) = Self.soapMessage(bytes) else { return }
        let name = uniqueMessageName(RecordedMessage(bytes: envelope.body)?.snakeName ?? "message")
        guard let open = template.range(of: #"<([A-Za-z_][\w.-]*:)?Body(\s[^>]*)?>"#, options: .regularExpression),
              let close = template.range(of: #"</([A-Za-z_][\w.-]*:)?Body\s*>"#, options: [.regularExpression, .backwards]),
              open.upperBound <= close.lowerBound else {
            warn(entries[index].number, "the SOAP body's \(element.root) could not be located in the recorded text; "
                + "it is replayed as recorded")
            return
        }
        found.append(FoundMessage(name: name, kind: element.kind, binding: .soap, entry: entries[index].number,
                                  served: true, relayState: Self.ecpRelayState(envelope), sigAlg: nil,
                                  parsed: RecordedMessage(bytes: envelope.body), rawXML: envelope.body))
        entries[index].body = String(template[..<open.upperBound]) + ReplayTemplate.placeholder("msg." + name, .inline)
            + String(template[close.lowerBound...])
    }

    func uniqueMessageName(_ base: String) -> String {
        var name = base
        var suffix = 2
        while found.contains(where: { $0.name == name }) {
            name = "\(base)_\(suffix)"
            suffix += 1
        }
        return name
    }

    // MARK: - Templates

    /// Decides re-signing, then makes each message's XML template and its `time` variables.
    mutating func makeMessageTemplates() {
        let anySigned = found.contains { ($0.parsed?.isSigned ?? false) || $0.sigAlg != nil }
        resign = options.resign ?? anySigned
        if options.redact, !resign, found.contains(where: { $0.parsed?.isSigned ?? false }) {
            resign = true
            warn(nil, "--redact changes signed content, so the signed messages are re-signed with the harness "
                + "test key (--no-resign ignored)")
        }
        let personal = options.redact ? personalReplacements() : [:]
        for message in found {
            guard let parsed = message.parsed else {
                warn(message.entry, "the \(message.kind == .request ? "SAMLRequest" : "SAMLResponse") is not "
                    + "well-formed XML; it is replayed as recorded")
                messages.append(.init(name: message.name, kind: message.kind, binding: message.binding, entry: message.entry,
                                      relayState: message.relayState.map(ReplayTemplate.escape),
                                      xml: ReplayTemplate.escape(String(decoding: message.rawXML, as: UTF8.self))))
                continue
            }
            let verbatim = parsed.isSigned && !resign
            let (xml, timestamps) = parsed.template(stripSignatures: resign && parsed.isSigned, personal: personal,
                                                    verbatim: verbatim)
            for timestamp in timestamps {
                let name = RecordedMessage.timeName(timestamp)
                guard !variables.contains(where: { $0.name == name }) else { continue }
                variables.append(.init(name: name, kind: .time, generate: true, offset: timestamp.offset,
                                       format: timestamp.milliseconds ? "xs:dateTime-ms" : "xs:dateTime"))
            }
            messages.append(.init(
                name: message.name, kind: message.kind, binding: message.binding, entry: message.entry,
                relayState: message.relayState.map(ReplayTemplate.escape),
                responseSigned: parsed.rootName == "Response" || parsed.responseSigned ? parsed.responseSigned : nil,
                assertionSigned: parsed.rootName == "Response" ? parsed.assertionSigned : nil,
                redirectSigAlg: message.sigAlg, xml: xml))
        }
    }

    /// NameID and AttributeValue texts → stand-ins of the same role: an e-mail-shaped value
    /// becomes `userN@example.invalid`, anything else `redacted-<attribute>-N`.
    mutating func personalReplacements() -> [String: String] {
        var replacements: [String: String] = [:]
        var counter = 0
        func add(_ value: String, role: String) {
            guard replacements[value] == nil else { return }
            counter += 1
            let isMail = value.contains("@") && value.split(separator: "@").last?.contains(".") == true && !value.contains(" ")
            let slug = role.filter { $0.isASCII && ($0.isLetter || $0.isNumber) }
            replacements[value] = isMail ? "user\(counter)@example.invalid" : "redacted-\(slug.isEmpty ? "value" : slug)-\(counter)"
        }
        for message in found {
            guard let parsed = message.parsed else { continue }
            for nameID in parsed.nameIDs {
                add(nameID, role: "nameid")
                noteRedaction(.personal, entry: message.entry, field: "saml:NameID")
            }
            for (attribute, value) in parsed.attributeValues {
                add(value, role: attribute)
                noteRedaction(.personal, entry: message.entry, field: "saml:AttributeValue(\(attribute))")
            }
        }
        for (value, replacement) in replacements { secrets.append((value, replacement, .personal)) }
        return replacements
    }

    mutating func noteRedaction(_ category: RecordedChain.Redaction.Category, entry: Int?, field: String,
                                placeholder: String? = nil) {
        let redaction = RecordedChain.Redaction(category: category, entry: entry, field: field, placeholder: placeholder)
        if !redactions.contains(redaction) { redactions.append(redaction) }
    }
}
