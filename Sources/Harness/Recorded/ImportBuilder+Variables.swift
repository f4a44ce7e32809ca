import Foundation
import SAMLCore

/// Finding the dynamic values of a chain and turning every occurrence into a placeholder.
extension ImportBuilder {
    /// A dynamic value found while reading.
    struct Candidate {
        var value: String
        var kind: RecordedChain.Variable.Kind
        var hint: String
        var entry: Int
        var field: String
        /// First seen in an answer (the replay makes it up) rather than in a request.
        var served: Bool
        var bindings: [RecordedChain.Binding] = []
    }

    /// The shortest value turned into a variable (shorter ones would match ordinary text).
    static let minimumValueLength = 4

    /// The variable kind a parameter name (or a value's shape) says, if any.
    static func kind(forParameter name: String, value: String) -> RecordedChain.Variable.Kind? {
        let lower = name.lowercased()
        if lower == "relaystate" { return .relayState }
        if lower == "execution" { return .execution }
        if ["csrf_token", "_csrf", "csrf", "csrfmiddlewaretoken", "authenticity_token", "__requestverificationtoken",
            "_token", "xsrf-token", "_xsrf", "csrftoken"].contains(lower) { return .csrf }
        if ["lt", "ticket", "pgtiou", "pgtid", "pgt"].contains(lower) { return .ticket }
        if ["access_token", "id_token", "refresh_token", "code", "token", "samlart", "auth_token", "bearer"].contains(lower) {
            return .token
        }
        if ["jsessionid", "sessionid", "session_id", "sid", "phpsessid", "asp.net_sessionid"].contains(lower) { return .sessionID }
        if isTicket(value) { return .ticket }
        return nil
    }

    /// CAS tickets (CAS protocol 3.0 §3.1–3.7): `ST-`, `PT-`, `TGT-`, `PGT-`, `PGTIOU-`, `LT-`.
    static func isTicket(_ value: String) -> Bool {
        ["ST-", "PT-", "TGT-", "PGT-", "PGTIOU-", "LT-"].contains { value.hasPrefix($0) && value.count > $0.count + 3 }
    }

    static func cookieKind(_ name: String) -> RecordedChain.Variable.Kind {
        let lower = name.lowercased()
        return lower.contains("sess") || lower.hasPrefix("_idp_session") || lower == "jsessionid" || lower == "tgc"
            ? .sessionID : .cookie
    }

    mutating func findVariables() {
        var candidates: [Candidate] = []
        func add(_ value: String, _ kind: RecordedChain.Variable.Kind, hint: String, entry: Int, field: String, served: Bool) {
            guard value.count >= Self.minimumValueLength, !value.contains(ReplayTemplate.open) else { return }
            if candidates.contains(where: { $0.value == value }) { return }
            candidates.append(Candidate(value: value, kind: kind, hint: hint, entry: entry, field: field, served: served))
        }
        // SAML message values, in the order the messages appear.
        for message in found {
            guard let parsed = message.parsed, !(parsed.isSigned && !resign) else { continue }
            for (element, id) in parsed.ids {
                let hint = element == parsed.rootName ? parsed.snakeName + "_id" : RecordedMessage.snakeCase(element) + "_id"
                add(id, .samlID, hint: hint, entry: message.entry, field: "saml:\(element)/@ID", served: message.served)
            }
            for value in parsed.inResponseTo {
                add(value, .samlID, hint: "in_response_to", entry: message.entry, field: "saml:@InResponseTo", served: false)
            }
            for value in parsed.sessionIndexes {
                add(value, .sessionID, hint: "session_index", entry: message.entry, field: "saml:@SessionIndex",
                    served: message.served)
            }
        }
        for message in found {
            if let relay = message.relayState {
                add(relay, .relayState, hint: "relay_state", entry: message.entry, field: "RelayState", served: message.served)
            }
        }
        for working in entries {
            let number = working.number
            for parameter in working.queryParams {
                if let kind = Self.kind(forParameter: parameter.name, value: parameter.value) {
                    add(parameter.value, kind, hint: parameter.name, entry: number, field: "query:\(parameter.name)", served: false)
                }
            }
            for (name, value) in working.formParams {
                if let kind = Self.kind(forParameter: name, value: value) {
                    add(value, kind, hint: name, entry: number, field: "form:\(name)", served: false)
                }
            }
            if let authorization = working.exchange.requestHeader("Authorization"),
               authorization.lowercased().hasPrefix("bearer ") {
                add(String(authorization.dropFirst(7)).trimmingCharacters(in: .whitespaces), .token, hint: "bearer_token",
                    entry: number, field: "header:Authorization", served: false)
            }
            for header in working.exchange.responseHeaders(named: "Set-Cookie") {
                let pair = header.split(separator: ";", maxSplits: 1).first.map(String.init) ?? header
                guard let eq = pair.firstIndex(of: "=") else { continue }
                let name = pair[..<eq].trimmingCharacters(in: .whitespaces)
                let value = pair[pair.index(after: eq)...].trimmingCharacters(in: .whitespaces)
                guard value.lowercased() != "deleted" else { continue }
                add(value, Self.cookieKind(name), hint: "cookie_" + name, entry: number, field: "set-cookie:\(name)", served: true)
            }
            if let location = working.exchange.responseHeader("Location") ?? working.exchange.redirectURL,
               let question = location.firstIndex(of: "?") {
                for parameter in QueryParameter.parse(String(location[location.index(after: question)...])) {
                    if let kind = Self.kind(forParameter: parameter.name, value: parameter.value) {
                        add(parameter.value, kind, hint: parameter.name, entry: number,
                            field: "location:\(parameter.name)", served: true)
                    }
                }
            }
            if !working.bodyBase64, let body = working.body {
                for form in HTMLFormParser.forms(in: body) {
                    for field in form.fields where field.type == "hidden" {
                        if let kind = Self.kind(forParameter: field.name, value: field.value) {
                            add(field.value, kind, hint: field.name, entry: number, field: "body:\(field.name)", served: true)
                        }
                    }
                }
                for (key, value) in Self.jsonStrings(body) {
                    if let kind = Self.kind(forParameter: key, value: value) {
                        add(value, kind, hint: key, entry: number, field: "json:\(key)", served: true)
                    }
                }
            }
        }
        // A value first seen in an answer is made up at replay; every request that echoes it
        // binds what the client actually sent.
        for index in candidates.indices {
            let value = candidates[index].value
            for working in entries {
                for parameter in working.queryParams where parameter.value == value {
                    candidates[index].bindings.append(.init(entry: working.number, from: .query, key: parameter.name))
                }
                for (name, formValue) in working.formParams where formValue == value && name != "SAMLResponse" {
                    candidates[index].bindings.append(.init(entry: working.number, from: .form, key: name))
                }
            }
        }
        for message in found where message.kind == .request {
            guard let rootID = message.parsed?.ids.first?.value,
                  let index = candidates.firstIndex(where: { $0.value == rootID }) else { continue }
            for working in entries where working.request.carries == message.name {
                candidates[index].bindings.append(.init(entry: working.number, from: .samlRequestID, key: "ID"))
            }
        }
        var names = Set(variables.map(\.name))
        for candidate in candidates {
            var base = String(candidate.hint.map { $0.isASCII && ($0.isLetter || $0.isNumber) ? $0 : "_" }.prefix(100))
            if candidate.kind == .relayState { base = "relay_state" }
            if base.isEmpty { base = "value" }
            var name = base
            var suffix = 2
            while names.contains(name) {
                name = "\(base)_\(suffix)"
                suffix += 1
            }
            names.insert(name)
            let shape = candidate.kind == .execution ? ValueShape.trailingDigits(of: candidate.value)
                : ValueShape.infer(from: candidate.value)
            var bindings: [RecordedChain.Binding] = []
            for binding in candidate.bindings where !bindings.contains(binding) { bindings.append(binding) }
            variables.append(.init(name: name, kind: candidate.kind, generate: candidate.served, shape: shape,
                                   bind: bindings.isEmpty ? nil : bindings))
            recordedValues[name] = candidate.value
            candidateOrigins[name] = (candidate.entry, candidate.field)
        }
    }

    /// String members of JSON objects anywhere in `text` when it is a JSON document.
    static func jsonStrings(_ text: String) -> [(String, String)] {
        let trimmed = text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.hasPrefix("{") || trimmed.hasPrefix("["), text.utf8.count < 4 << 20,
              let json = try? JSONSerialization.jsonObject(with: Data(trimmed.utf8)) else { return [] }
        var out: [(String, String)] = []
        var stack: [Any] = [json]
        while let item = stack.popLast(), out.count < 10_000 {
            if let object = item as? [String: Any] {
                for (key, value) in object.sorted(by: { $0.key < $1.key }) {
                    if let string = value as? String { out.append((key, string)) } else { stack.append(value) }
                }
            } else if let array = item as? [Any] {
                stack.append(contentsOf: array.reversed())
            }
        }
        return out
    }

    // MARK: - Templating

    /// Replaces every occurrence of every variable's recorded value (as is, URL-encoded,
    /// form-encoded, HTML-escaped, JSON-escaped) with its placeholder, longest values first.
    mutating func applyVariables() {
        let replacements = variables.compactMap { variable -> (String, String)? in
            recordedValues[variable.name].map { ($0, variable.name) }
        }.sorted { $0.0.count > $1.0.count }
        guard !replacements.isEmpty else { return }
        transformTemplates { text in
            Self.substitute(text, replacements.map { pair in
                (pair.0, { filter in ReplayTemplate.placeholder(pair.1, filter) })
            })
        }
    }

    /// Applies `transform` to the literal text of every template the chain serves: header
    /// values, text bodies, the XML of messages that are not served verbatim, RelayStates.
    mutating func transformTemplates(_ transform: (String) -> [ReplayTemplate.Segment]) {
        startURL = startURL.map { ReplayTemplate.mapLiterals($0, transform) }
        for index in entries.indices {
            for header in entries[index].headers.indices {
                entries[index].headers[header].value = ReplayTemplate.mapLiterals(entries[index].headers[header].value, transform)
            }
            if !entries[index].bodyBase64, let body = entries[index].body {
                entries[index].body = ReplayTemplate.mapLiterals(body, transform)
            }
            if let values = entries[index].request.values {
                entries[index].request.values = values.mapValues { ReplayTemplate.mapLiterals($0, transform) }
            }
        }
        for index in messages.indices {
            let verbatim = (messages[index].responseSigned == true || messages[index].assertionSigned == true) && !resign
            if !verbatim { messages[index].xml = ReplayTemplate.mapLiterals(messages[index].xml, transform) }
            if let relay = messages[index].relayState {
                messages[index].relayState = ReplayTemplate.mapLiterals(relay, transform)
            }
        }
    }

    /// Splits `text` at every occurrence of each value (in its plain and encoded forms), putting
    /// what `placeholder` makes for the encoding in its place. Values shorter than 12 characters
    /// only match between non-alphanumeric characters, so `member` never matches `remember`.
    static func substitute(_ text: String,
                           _ values: [(value: String, placeholder: (ReplayTemplate.Filter?) -> String)]) -> [ReplayTemplate.Segment] {
        var segments: [ReplayTemplate.Segment] = [.literal(text)]
        for (value, placeholder) in values {
            var variants: [(String, ReplayTemplate.Filter?)] = [(value, nil)]
            for filter in [ReplayTemplate.Filter.url, .url2, .form, .html, .json] {
                let encoded = ReplayTemplate.encode(value, filter)
                if !variants.contains(where: { $0.0 == encoded }) { variants.append((encoded, filter)) }
            }
            for (needle, filter) in variants {
                let inserted = placeholder(filter)
                segments = segments.flatMap { segment -> [ReplayTemplate.Segment] in
                    guard case .literal(let literal) = segment else { return [segment] }
                    return split(literal, at: needle, boundaries: value.count < 12).flatMap { part -> [ReplayTemplate.Segment] in
                        part == nil ? (try? ReplayTemplate.parse(inserted)) ?? [] : [.literal(part ?? "")]
                    }
                }
            }
        }
        return segments.filter { if case .literal(let text) = $0 { return !text.isEmpty } else { return true } }
    }

    /// `text` cut at each match of `needle`: the literal parts, with nil where a match was.
    static func split(_ text: String, at needle: String, boundaries: Bool) -> [String?] {
        guard !needle.isEmpty, text.contains(needle) else { return [text] }
        var parts: [String?] = []
        var rest = text[...]
        var searchFrom = rest.startIndex
        while let range = rest.range(of: needle, range: searchFrom..<rest.endIndex) {
            if boundaries {
                let before = range.lowerBound > rest.startIndex ? rest[rest.index(before: range.lowerBound)] : nil
                let after = range.upperBound < rest.endIndex ? rest[range.upperBound] : nil
                let isWordCharacter = { (c: Character?) in c.map { $0.isLetter || $0.isNumber } ?? false }
                if isWordCharacter(before) || isWordCharacter(after) {
                    searchFrom = rest.index(after: range.lowerBound)
                    continue
                }
            }
            parts.append(String(rest[..<range.lowerBound]))
            parts.append(nil)
            rest = rest[range.upperBound...]
            searchFrom = rest.startIndex
        }
        parts.append(String(rest))
        return parts
    }
}
