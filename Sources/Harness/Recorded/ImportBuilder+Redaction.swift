import Foundation
import SAMLCore

/// `--redact`: passwords, tokens, cookie values, session IDs and personal attributes out of
/// the chain, each listed (category, entry, field — never the value).
///
/// A password, a user name or a token sent in a request is never stored in a chain (only the
/// values ``ImportBuilder/keepsValue(_:_:)`` keeps for matching are), so it only needs to be
/// listed, and scrubbed from any answer (or kept value) that echoes it.
/// Variables keep no recorded value. Personal values (NameID, AttributeValue, the user name
/// typed in) are replaced by stand-ins of the same role wherever they appear.
extension ImportBuilder {
    mutating func redact() {
        for working in entries {
            let number = working.number
            for (name, value) in working.formParams where !value.isEmpty {
                if Self.isPasswordField(name) {
                    secrets.append((value, "redacted-password", .password))
                    noteRedaction(.password, entry: number, field: "form:\(name)", placeholder: "redacted-password")
                } else if Self.isUsernameField(name) {
                    secrets.append((value, "redacted-username", .personal))
                    noteRedaction(.personal, entry: number, field: "form:\(name)", placeholder: "redacted-username")
                }
            }
            for header in ["Authorization", "Proxy-Authorization"] {
                guard let value = working.exchange.requestHeader(header) else { continue }
                let parts = value.split(separator: " ", maxSplits: 1).map(String.init)
                let scheme = parts.first?.lowercased() ?? ""
                if scheme == "basic", parts.count == 2, let decoded = Data(base64Encoded: parts[1]),
                   let text = String(data: decoded, encoding: .utf8), let colon = text.firstIndex(of: ":") {
                    secrets.append((String(text[text.index(after: colon)...]), "redacted-password", .password))
                    secrets.append((String(text[..<colon]), "redacted-username", .personal))
                    secrets.append((parts[1], "redacted-credentials", .password))
                    noteRedaction(.password, entry: number, field: "header:\(header) (Basic)")
                } else if scheme == "bearer", parts.count == 2 {
                    secrets.append((parts[1], "redacted-token", .token))
                    noteRedaction(.token, entry: number, field: "header:\(header) (Bearer)")
                } else {
                    noteRedaction(.password, entry: number, field: "header:\(header) (\(parts.first ?? "credentials"))")
                }
            }
            // WS-Trust UsernameToken (WS-Security UsernameToken Profile 1.1 §3.1).
            if let body = working.exchange.requestBody {
                for password in Self.elementTexts(named: "Password", in: body) where !password.isEmpty {
                    secrets.append((password, "redacted-password", .password))
                    noteRedaction(.password, entry: number, field: "soap:wsse:Password")
                }
            }
            for cookie in working.exchange.requestHeader("Cookie")?.split(separator: ";") ?? [] {
                let pair = cookie.trimmingCharacters(in: .whitespaces)
                guard let eq = pair.firstIndex(of: "=") else { continue }
                let value = String(pair[pair.index(after: eq)...])
                if value.count >= Self.minimumValueLength { secrets.append((value, "redacted-cookie", .cookie)) }
            }
        }
        for variable in variables {
            guard recordedValues[variable.name] != nil, let origin = candidateOrigins[variable.name] else { continue }
            let category: RecordedChain.Redaction.Category? = switch variable.kind {
            case .cookie: .cookie
            case .sessionID: .sessionID
            case .token, .ticket, .csrf: .token
            case .samlID, .relayState, .time, .execution: nil
            }
            if let category {
                noteRedaction(category, entry: origin.entry, field: origin.field, placeholder: ReplayTemplate.placeholder(variable.name))
            }
        }
        // A shape's literal prefix must not carry a secret either (a cookie `user-alice-…`).
        for index in variables.indices {
            guard let shape = variables[index].shape, !shape.prefix.isEmpty,
                  secrets.contains(where: { $0.value.count >= 3 && shape.prefix.contains($0.value) }) else { continue }
            variables[index].shape = ValueShape(prefix: "", length: shape.prefix.count + shape.length,
                                                alphabet: .alphanumeric, suffix: shape.suffix)
        }
        let scrub = secrets.filter { $0.value.count >= 3 }.sorted { $0.value.count > $1.value.count }
        guard !scrub.isEmpty else { return }
        transformTemplates { text in
            Self.substitute(text, scrub.map { secret in (secret.value, { _ in ReplayTemplate.escape(secret.replacement) }) })
        }
    }

    /// The texts of `<…:name>…</…:name>` elements in an XML body, found without parsing (the
    /// body may not be well-formed, and is never served).
    static func elementTexts(named name: String, in text: String) -> [String] {
        var results: [String] = []
        var rest = text[...]
        while let open = rest.range(of: ":\(name)") ?? rest.range(of: "<\(name)") {
            guard let close = rest[open.upperBound...].firstIndex(of: ">") else { break }
            let contentStart = rest.index(after: close)
            guard let end = rest[contentStart...].range(of: "</") else { break }
            if open.upperBound < rest.endIndex, rest[open.upperBound] == ">" || rest[open.upperBound] == " " {
                // The predefined entities and character references (XML 1.0 §4.6) read like HTML's.
                results.append(HTMLText.decodeEntities(String(rest[contentStart..<end.lowerBound])))
            }
            rest = rest[end.upperBound...]
            if results.count > 100 { break }
        }
        return results
    }
}
