import Foundation
import SAMLCore

/// Turns a browser HAR 1.2 export (Chrome, Firefox) or a SAML-tracer JSON export into a
/// ``RecordedChain`` and a complete `replay` ``Scenario`` (`samlharness import-har`).
///
/// The passes, in order: read the file (``RecordedInputReader``); keep the login chain's
/// exchanges (documents, redirects, form posts, XHR of navigated origins — not images, styles,
/// scripts, fonts); find the SAML messages and decode them; make the message XML templates
/// (signatures removed when re-signing, personal values replaced when redacting, timestamps
/// re-timed); synthesize the answers the file lacks; turn dynamic values into variables; scrub
/// secrets (`--redact`); name the origins.
///
/// ```swift
/// let result = try ChainImporter.importFile(at: harURL, options: .init(scenarioID: "shib-login", redact: true))
/// print(result.warnings, result.chain.redactions ?? [])
/// let yaml = try RecordedScenarioWriter.yaml(result.scenario)
/// ```
public enum ChainImporter {
    public struct Options: Sendable {
        /// The scenario id (the output file's name without `.yaml`).
        public var scenarioID: String
        /// Remove passwords, tokens, cookie values, session IDs and personal attributes.
        public var redact: Bool
        /// Re-sign at replay; nil: re-sign when a recorded message was signed.
        public var resign: Bool?
        /// When the import happens (the scenario's description says it).
        public var now: Date

        public init(scenarioID: String, redact: Bool = false, resign: Bool? = nil, now: Date = Date()) {
            self.scenarioID = scenarioID
            self.redact = redact
            self.resign = resign
            self.now = now
        }
    }

    /// What an import produced.
    public struct Result: Sendable {
        public var scenario: Scenario
        public var chain: RecordedChain
        /// Exchanges left out, one line each (`#12 GET https://…/logo.png: image`).
        public var skipped: [String]
        public var warnings: [RecordedChain.Warning] { chain.warnings ?? [] }
    }

    /// Imports a file; errors name the file and what is wrong with it.
    public static func importFile(at url: URL, options: Options) throws -> Result {
        let input = try RecordedInputReader.read(file: url)
        return try build(input, file: url.lastPathComponent, options: options)
    }

    /// Imports the bytes of a file called `file`.
    public static func importData(_ data: Data, file: String, options: Options) throws -> Result {
        try build(try RecordedInputReader.read(data: data, file: file), file: file, options: options)
    }

    static func build(_ input: RecordedInput, file: String, options: Options) throws -> Result {
        var builder = ImportBuilder(input: input, options: options)
        try builder.selectEntries(file: file)
        builder.findMessages()
        builder.makeMessageTemplates()
        builder.synthesizeMissingAnswers()
        builder.findVariables()
        builder.applyVariables()
        if options.redact { builder.redact() }
        let chain = builder.finish(file: file)
        if let tooMany = chain.tooManyOrigins {
            throw RecordedImportError(file: file, message: "the recording crosses " + tooMany)
        }
        let scenario = RecordedScenarioWriter.scenario(for: chain, id: options.scenarioID, redacted: options.redact)
        return Result(scenario: scenario, chain: chain, skipped: builder.skipped)
    }
}

/// The import's working state, shared by the passes (one file per concern).
struct ImportBuilder {
    /// One exchange being turned into an ``RecordedChain/Entry``.
    struct Working {
        var number: Int
        var exchange: RecordedExchange
        var url: RecordedURL
        var request: RecordedChain.Request
        /// Decoded query and form parameters of the request (values as the client sent them).
        var queryParams: [QueryParameter]
        var formParams: [(name: String, value: String)]
        var status: Int
        var headers: [RecordedChain.Header]
        var body: String?
        var bodyBase64 = false
        var synthesized = false
    }

    /// A message found while reading, before its template is made.
    struct FoundMessage {
        var name: String
        var kind: RecordedChain.Message.Kind
        var binding: RecordedChain.Message.Binding
        var entry: Int
        /// Served by the chain (a Location or a form), rather than only seen in a request.
        var served: Bool
        var relayState: String?
        var sigAlg: String?
        var parsed: RecordedMessage?
        var rawXML: [UInt8]
    }

    let input: RecordedInput
    let options: Options
    typealias Options = ChainImporter.Options
    var entries: [Working] = []
    var found: [FoundMessage] = []
    var messages: [RecordedChain.Message] = []
    var variables: [RecordedChain.Variable] = []
    /// Recorded values of variables (kept apart so redaction can drop them).
    var recordedValues: [String: String] = [:]
    /// Where each variable's value was first seen (entry, field), for the redaction list.
    var candidateOrigins: [String: (entry: Int, field: String)] = [:]
    var redactions: [RecordedChain.Redaction] = []
    var warnings: [RecordedChain.Warning] = []
    var skipped: [String] = []
    var resign = false
    /// The first request's URL (a template).
    var startURL: String?
    /// Secret strings seen in requests (passwords, usernames, bearer tokens), scrubbed from every
    /// template by `--redact`, with what stands in for them.
    var secrets: [(value: String, replacement: String, category: RecordedChain.Redaction.Category)] = []

    init(input: RecordedInput, options: Options) {
        self.input = input
        self.options = options
    }

    mutating func warn(_ entry: Int?, _ message: String) {
        let warning = RecordedChain.Warning(entry: entry, message: message)
        if !warnings.contains(warning) { warnings.append(warning) }
    }

    // MARK: - Which exchanges make the chain

    /// Chrome `_resourceType`s that are never part of a login chain.
    static let staticResourceTypes: Set<String> = [
        "image", "stylesheet", "script", "font", "media", "manifest", "texttrack", "ping", "websocket",
        "eventsource", "preflight", "cspviolationreport", "signedexchange", "prefetch", "beacon",
    ]
    static let staticExtensions: Set<String> = [
        "png", "jpg", "jpeg", "gif", "svg", "ico", "webp", "avif", "bmp", "css", "js", "mjs", "map",
        "woff", "woff2", "ttf", "otf", "eot", "mp4", "webm", "mp3",
    ]
    /// Response headers never replayed: framing and transport (the listener writes its own),
    /// dates, and policies that break a plain-http loopback replay (HSTS, CSP upgrades).
    static let droppedResponseHeaders: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "connection", "keep-alive", "date",
        "alt-svc", "strict-transport-security", "expect-ct", "nel", "report-to", "reporting-endpoints",
        "content-security-policy", "content-security-policy-report-only", "public-key-pins", "server-timing",
        "age", "via", "x-cache", "cf-ray", "upgrade", "proxy-connection",
    ]

    /// Why an exchange is left out, or nil to keep it. The rule: keep documents, redirects, form
    /// posts, XHR/fetch and anything carrying a SAML message; leave out static resources (by
    /// Chrome's `_resourceType`, the answer's MIME type or the path's extension), CORS
    /// preflights, unanswered requests and non-http(s) URLs.
    static func skipReason(_ exchange: RecordedExchange) -> String? {
        guard let url = RecordedURL(exchange.url) else { return "not an http(s) URL" }
        let carriesSAML = ["SAMLRequest=", "SAMLResponse="].contains { exchange.url.contains($0) }
            || (exchange.requestParams ?? []).contains { $0.name == "SAMLRequest" || $0.name == "SAMLResponse" }
            || (exchange.requestBody ?? "").contains("SAMLResponse=") || (exchange.requestBody ?? "").contains("SAMLRequest=")
        if carriesSAML { return nil }
        if exchange.status == 0 { return "no answer was recorded (status 0: blocked, cancelled or failed)" }
        if exchange.method == "OPTIONS" { return "CORS preflight" }
        if let type = exchange.resourceType?.lowercased(), staticResourceTypes.contains(type) { return type }
        let mime = (exchange.responseMimeType ?? exchange.responseHeader("Content-Type") ?? "").lowercased()
        if mime.hasPrefix("image/") || mime.hasPrefix("font/") || mime.hasPrefix("audio/") || mime.hasPrefix("video/")
            || mime.hasPrefix("text/css") || mime.contains("javascript") {
            return mime.split(separator: ";").first.map(String.init) ?? mime
        }
        let last = url.path.split(separator: "/").last.map(String.init) ?? ""
        if let dot = last.lastIndex(of: "."), staticExtensions.contains(last[last.index(after: dot)...].lowercased()) {
            return "static file"
        }
        return nil
    }

    mutating func selectEntries(file: String) throws {
        var kept: [RecordedExchange] = []
        for exchange in input.exchanges {
            if let reason = Self.skipReason(exchange) {
                skipped.append("#\(exchange.sourceIndex) \(exchange.method) \(exchange.url.prefix(120)): \(reason)")
            } else {
                kept.append(exchange)
            }
        }
        // Origins only ever fetched by XHR/fetch (analytics, APIs of other pages) are not part
        // of the navigation: an origin stays when one of its exchanges is navigated to.
        let navigated = Set(kept.filter(Self.isNavigation).compactMap { RecordedURL($0.url)?.origin })
        kept.removeAll { exchange in
            guard let origin = RecordedURL(exchange.url)?.origin, !navigated.contains(origin) else { return false }
            skipped.append("#\(exchange.sourceIndex) \(exchange.method) \(exchange.url.prefix(120)): origin "
                + "never navigated to")
            return true
        }
        guard !kept.isEmpty else {
            throw RecordedImportError(file: file, message: "none of the \(input.exchanges.count) recorded "
                + "exchanges is part of a login chain (only images, styles, scripts or unanswered requests)")
        }
        // Where a client starts: the first request of the login, past any metadata the recorded
        // client fetched first to configure itself (pysaml2 reads the IdP's at its entity ID).
        startURL = (kept.first { !Self.isMetadata($0) } ?? kept.first).map { ReplayTemplate.escape($0.url) }
        for exchange in kept {
            guard let url = RecordedURL(exchange.url) else { continue }
            entries.append(makeWorking(exchange, url: url, number: entries.count + 1))
        }
    }

    /// An answer that is SAML metadata (an `EntityDescriptor` or `EntitiesDescriptor`).
    static func isMetadata(_ exchange: RecordedExchange) -> Bool {
        guard exchange.method == "GET", let body = exchange.responseBody else { return false }
        let head = String(decoding: body.prefix(2048), as: UTF8.self)
        return head.contains("EntityDescriptor") || head.contains("EntitiesDescriptor")
    }

    /// A page the browser navigated to: Chrome says so (`_resourceType: document`); without
    /// that field, a redirect, an HTML answer, or anything that is not JSON.
    static func isNavigation(_ exchange: RecordedExchange) -> Bool {
        if let type = exchange.resourceType?.lowercased(), !type.isEmpty {
            return type == "document" || type == "main_frame" || type == "sub_frame"
        }
        let mime = (exchange.responseMimeType ?? exchange.responseHeader("Content-Type") ?? "").lowercased()
        return (300..<400).contains(exchange.status) || mime.contains("html") || !mime.contains("json")
    }

    private func makeWorking(_ exchange: RecordedExchange, url: RecordedURL, number: Int) -> Working {
        let query = url.query.map(QueryParameter.parse) ?? []
        var form: [(name: String, value: String)] = []
        let mime = (exchange.requestMimeType ?? exchange.requestHeader("Content-Type") ?? "").lowercased()
        let isForm = mime.hasPrefix("application/x-www-form-urlencoded")
        if isForm {
            if let body = exchange.requestBody, !body.isEmpty {
                form = QueryParameter.parse(body).map { ($0.name, $0.value) }
            } else if let params = exchange.requestParams {
                form = exchange.paramsDecoded ? params
                    : params.map { (PercentEncoding.formDecode($0.name), PercentEncoding.formDecode($0.value)) }
            }
        }
        let cookieNames = (exchange.requestHeader("Cookie") ?? "").split(separator: ";").compactMap { pair -> String? in
            let trimmed = pair.trimmingCharacters(in: .whitespaces)
            return trimmed.split(separator: "=", maxSplits: 1).first.map(String.init)
        }
        let authorization = exchange.requestHeader("Authorization")?.split(separator: " ").first.map(String.init)
        var values: [String: String] = [:]
        for (name, value) in query.map({ ($0.name, $0.value) }) + form where values[name] == nil {
            if Self.keepsValue(name, value) { values[name] = ReplayTemplate.escape(value) }
        }
        var matchedHeaders: [String: String] = [:]
        for name in ReplayMatcher.recordedHeaders {
            if let value = ReplayMatcher.headerKey(name, exchange.requestHeader(name)) { matchedHeaders[name] = value }
        }
        // An error answer is replayed only to a request like the one that got it: what made the
        // recorded server refuse may be exactly what a client does differently.
        let match: RecordedChain.Matching? = exchange.status >= 400 ? .init(strictness: .strict) : nil
        let request = RecordedChain.Request(
            method: exchange.method, path: url.path, query: Array(Set(query.map(\.name))).sorted(),
            form: isForm ? Array(Set(form.map(\.name))).sorted() : nil,
            cookies: cookieNames.isEmpty ? nil : Array(Set(cookieNames)).sorted(), authorization: authorization,
            values: values.isEmpty ? nil : values, headers: matchedHeaders.isEmpty ? nil : matchedHeaders, match: match)
        var headers: [RecordedChain.Header] = []
        for (name, value) in exchange.responseHeaders {
            let lower = name.lowercased()
            // RFC 9110 §5.1: a field name is a token (HTTP/2 pseudo-headers like `:status` are not).
            guard !name.isEmpty, name.allSatisfy(Self.isTokenCharacter),
                  !Self.droppedResponseHeaders.contains(lower) else { continue }
            headers.append(.init(name: name, value: ReplayTemplate.escape(value)))
        }
        if (300..<400).contains(exchange.status), exchange.responseHeader("Location") == nil,
           let redirect = exchange.redirectURL {
            headers.append(.init(name: "Location", value: ReplayTemplate.escape(redirect)))
        }
        var working = Working(number: number, exchange: exchange, url: url, request: request, queryParams: query,
                              formParams: form, status: exchange.status, headers: headers)
        if let bytes = exchange.responseBody, !bytes.isEmpty {
            if let text = String(validating: bytes, as: UTF8.self) {
                working.body = ReplayTemplate.escape(text)
            } else {
                working.body = Data(bytes).base64EncodedString()
                working.bodyBase64 = true
            }
        }
        return working
    }

    /// Whether a request parameter's recorded value is kept for matching: never a password, a
    /// user name, a token or credential, a SAML message or its signature, nor a value over
    /// 1,024 characters. Dynamic values in what is kept become placeholders, like everything
    /// the chain serves.
    static func keepsValue(_ name: String, _ value: String) -> Bool {
        guard value.count <= 1024, !isPasswordField(name), !isUsernameField(name),
              !["SAMLRequest", "SAMLResponse", "SAMLart", "Signature", "SigAlg", "wresult"].contains(name) else { return false }
        let kind = kind(forParameter: name, value: value)
        return kind != .token && kind != .ticket && kind != .sessionID
    }

    static func isTokenCharacter(_ character: Character) -> Bool {
        character.isASCII && (character.isLetter || character.isNumber || "!#$%&'*+.^_`|~-".contains(character))
    }

    // MARK: - Finishing

    /// Names the origins (`sp`, `idp`, `other-1`…) by what they did with SAML messages.
    func originRoles() -> [String: RecordedChain.Origin.Role] {
        var roles: [String: RecordedChain.Origin.Role] = [:]
        for entry in entries {
            let origin = entry.url.origin
            for message in found where message.entry == entry.number {
                // Serving a request or receiving a response: an SP; the other way round: an IdP.
                let servedHere = message.served
                let role: RecordedChain.Origin.Role = (message.kind == .request) == servedHere ? .sp : .idp
                if roles[origin] == nil || roles[origin] == .other { roles[origin] = role }
            }
            if let carried = entry.request.carries, let message = found.first(where: { $0.name == carried }) {
                let role: RecordedChain.Origin.Role = message.kind == .request ? .idp : .sp
                if roles[origin] == nil { roles[origin] = role }
            }
            if roles[origin] == nil { roles[origin] = .other }
        }
        return roles
    }

    mutating func finish(file: String) -> RecordedChain {
        let roles = originRoles()
        var origins: [RecordedChain.Origin] = []
        var names: [String: String] = [:]
        var counts: [RecordedChain.Origin.Role: Int] = [:]
        for entry in entries where names[entry.url.origin] == nil {
            let role = roles[entry.url.origin] ?? .other
            counts[role, default: 0] += 1
            let count = counts[role] ?? 1
            let name = role == .other ? "other-\(count)" : count == 1 ? role.rawValue : "\(role.rawValue)-\(count)"
            names[entry.url.origin] = name
            origins.append(.init(name: name, url: entry.url.origin, role: role))
        }
        let chainEntries = entries.map { working in
            RecordedChain.Entry(
                number: working.number, sourceIndex: working.exchange.sourceIndex,
                origin: names[working.url.origin] ?? "other-1", request: working.request,
                response: .init(status: working.status, headers: working.headers, body: working.body,
                                bodyBase64: working.bodyBase64 ? true : nil, synthesized: working.synthesized ? true : nil,
                                waitMilliseconds: working.exchange.waitMilliseconds))
        }
        let formatter = ISO8601DateFormatter()
        var recorded = input.recorded
        if let first = input.exchanges.first?.started { recorded = formatter.string(from: first) }
        let source = RecordedChain.Source(format: input.format, file: file, creator: input.creator, recorded: recorded,
                                          imported: formatter.string(from: options.now))
        let used = usedVariableNames(chainEntries)
        let kept = variables.filter { used.contains($0.name) || !($0.bind ?? []).isEmpty }.map { variable in
            var copy = variable
            if !options.redact { copy.recorded = recordedValues[variable.name] }
            return copy
        }
        return RecordedChain(source: source, origins: origins, startURL: startURL, resign: resign, entries: chainEntries, messages: messages,
                             variables: kept, redactions: options.redact ? redactions : nil,
                             warnings: warnings.isEmpty ? nil : warnings)
    }

    private func usedVariableNames(_ entries: [RecordedChain.Entry]) -> Set<String> {
        var templates: [String] = startURL.map { [$0] } ?? []
        for entry in entries {
            templates += entry.response.headers.map(\.value)
            templates += (entry.request.values ?? [:]).values
            if entry.response.bodyBase64 != true, let body = entry.response.body { templates.append(body) }
        }
        for message in messages {
            templates.append(message.xml)
            if let relay = message.relayState { templates.append(relay) }
        }
        return Set(templates.flatMap { ReplayTemplate.placeholders(in: $0).map(\.name) })
    }
}
