import Foundation

/// The recorded redirect chain of a `replay` scenario (`replay:` in the YAML), written by
/// `samlharness import-har` from a browser HAR or a SAML-tracer export and played back live by
/// ``ReplaySession``.
///
/// Text that is served (header values, bodies, SAML XML) is a ``ReplayTemplate``: literal text
/// with `⟦name⟧` placeholders for the dynamic values listed in ``variables`` and the SAML
/// messages listed in ``messages``. Recorded origins stay literal in the text; the replay
/// rewrites them to its loopback listeners. docs/recorded-chains.md describes every key.
public struct RecordedChain: Codable, Sendable, Equatable {
    /// Where the chain came from.
    public var source: Source
    /// Every recorded `scheme://host[:port]`, each replayed on a listener of its own.
    public var origins: [Origin]
    /// The URL the recording started at (a template): where a client is pointed.
    public var startURL: String?
    /// Remove the recorded signatures and sign the SAML Responses again with the harness test
    /// IdP key (MockIdP/keys/idp-key.pem), after re-timing them.
    public var resign: Bool
    /// The exchanges, in recorded order. The first one is where a client starts.
    public var entries: [Entry]
    /// The SAML messages, decoded; referenced from entries as `⟦msg.NAME|encoding⟧`.
    public var messages: [Message]
    /// The dynamic values (`⟦NAME⟧` in templates).
    public var variables: [Variable]
    /// What `--redact` removed (never the values themselves).
    public var redactions: [Redaction]?
    /// What the import could not recover, and what it synthesized instead.
    public var warnings: [Warning]?
    /// How requests are matched to entries, for the whole chain (``Matching``; absent: the
    /// default strictness and the built-in table of parameters read from anywhere).
    public var matching: Matching?
    /// Replay the recorded server waits (each entry's ``Response/waitMilliseconds``), times the
    /// run's `--time-scale`. Off unless the scenario says so.
    public var delays: Bool?

    enum CodingKeys: String, CodingKey {
        case source, origins
        case startURL = "start_url"
        case resign, entries, messages, variables, redactions, warnings, matching, delays
    }

    public init(source: Source, origins: [Origin], startURL: String? = nil, resign: Bool, entries: [Entry],
                messages: [Message] = [], variables: [Variable] = [], redactions: [Redaction]? = nil,
                warnings: [Warning]? = nil, matching: Matching? = nil, delays: Bool? = nil) {
        self.source = source
        self.origins = origins
        self.startURL = startURL
        self.resign = resign
        self.entries = entries
        self.messages = messages
        self.variables = variables
        self.redactions = redactions
        self.warnings = warnings
        self.matching = matching
        self.delays = delays
    }

    public func origin(named name: String) -> Origin? { origins.first { $0.name == name } }
    public func message(named name: String) -> Message? { messages.first { $0.name == name } }
    public func variable(named name: String) -> Variable? { variables.first { $0.name == name } }
    /// The entry with this number (1-based, as warnings and annotations name it).
    public func entry(_ number: Int) -> Entry? { entries.first { $0.number == number } }

    /// `source:` — the recorded file.
    public struct Source: Codable, Sendable, Equatable {
        public enum Format: String, Codable, Sendable {
            case har
            case samlTracer = "saml-tracer"
        }

        public var format: Format
        /// The file name (without directories).
        public var file: String
        /// The browser or tool that wrote it (`creator.name creator.version` in a HAR).
        public var creator: String?
        /// When the first recorded exchange started (ISO 8601), when known.
        public var recorded: String?
        /// When it was imported (ISO 8601).
        public var imported: String

        public init(format: Format, file: String, creator: String? = nil, recorded: String? = nil, imported: String) {
            self.format = format
            self.file = file
            self.creator = creator
            self.recorded = recorded
            self.imported = imported
        }
    }

    /// One recorded origin.
    public struct Origin: Codable, Sendable, Equatable {
        public enum Role: String, Codable, Sendable {
            /// Sent a SAMLRequest or received a SAMLResponse.
            case sp
            /// Received a SAMLRequest or sent a SAMLResponse.
            case idp
            case other
        }

        /// A short name (`sp`, `idp`, `other-1`…): the listener's name in the traffic log.
        public var name: String
        /// `scheme://host[:port]`, the port only when not the scheme's default.
        public var url: String
        public var role: Role

        public init(name: String, url: String, role: Role) {
            self.name = name
            self.url = url
            self.role = role
        }
    }

    /// One exchange: what a request must look like to be answered, and the answer.
    public struct Entry: Codable, Sendable, Equatable {
        /// 1-based position in the chain.
        public var number: Int
        /// The index of the exchange in the recorded file (0-based `log.entries[i]` or
        /// `requests[i]`), so a reader can find it there.
        public var sourceIndex: Int
        /// The origin's name.
        public var origin: String
        public var request: Request
        public var response: Response

        enum CodingKeys: String, CodingKey {
            case number
            case sourceIndex = "source_index"
            case origin, request, response
        }

        public init(number: Int, sourceIndex: Int, origin: String, request: Request, response: Response) {
            self.number = number
            self.sourceIndex = sourceIndex
            self.origin = origin
            self.request = request
            self.response = response
        }
    }

    /// What a request is matched by (``ReplayMatcher``): method and path pick the candidates;
    /// the query and form parameters, their recorded values, a few headers and the cookies
    /// score them. Plus what it carried that the replay checks.
    public struct Request: Codable, Sendable, Equatable {
        public var method: String
        /// The path, percent-escapes as recorded.
        public var path: String
        /// The query's keys, sorted, without duplicates.
        public var query: [String]
        /// The form body's keys (`application/x-www-form-urlencoded`), sorted, without duplicates.
        public var form: [String]?
        /// The names of the cookies the browser sent (informative; not matched).
        public var cookies: [String]?
        /// The `Authorization` scheme sent (`Basic`, `Bearer`…), never the credentials.
        public var authorization: String?
        /// The SAML message this request carried (a name in `messages`). A `SAMLResponse`
        /// posted here is validated by the replayed SP (its ACS).
        public var carries: String?
        /// The recorded values of the parameters that are neither secret nor personal nor a
        /// SAML message (parameter name → template; a dynamic value is its placeholder, so
        /// `AuthState: ⟦AuthState⟧` compares with the value the replay handed out). Scored,
        /// never required, unless the strictness is `strict`.
        public var values: [String: String]?
        /// The request headers that tell requests to one URL apart (`Content-Type`'s media
        /// type, `SOAPAction`, `PAOS`, an `Accept` naming PAOS), as recorded.
        public var headers: [String: String]?
        /// This entry's own matching rules, over the chain's ``RecordedChain/matching``.
        public var match: Matching?

        public init(method: String, path: String, query: [String] = [], form: [String]? = nil,
                    cookies: [String]? = nil, authorization: String? = nil, carries: String? = nil,
                    values: [String: String]? = nil, headers: [String: String]? = nil, match: Matching? = nil) {
            self.method = method
            self.path = path
            self.query = query
            self.form = form
            self.cookies = cookies
            self.authorization = authorization
            self.carries = carries
            self.values = values
            self.headers = headers
            self.match = match
        }
    }

    /// How strictly requests must look like the recording (docs/recorded-chains.md, "Matching").
    public struct Matching: Codable, Sendable, Equatable {
        public enum Strictness: String, Codable, Sendable, CaseIterable {
            /// The recorded parameter names in their recorded places, the recorded values where
            /// known, the recorded headers: the recording browser's requests, nothing else (the
            /// built-in table of parameters read from anywhere does not apply; the chain's or
            /// entry's own `anywhere` does). Cookies only rank.
            case strict
            /// The best-scoring entry of the same method and path answers, unless it lacks the
            /// SAML message it carried or half of what was recorded is missing or different.
            case `default`
            /// The best-scoring entry of the same method and path answers, whatever differs.
            case lenient
        }

        public var strictness: Strictness?
        /// Parameters (query or form) left out of matching: neither missing, extra nor changed.
        public var ignoreParameters: [String]?
        /// Headers left out (of ``Request/headers`` and the `Authorization` scheme).
        public var ignoreHeaders: [String]?
        /// Cookies whose absence or change does not count.
        public var ignoreCookies: [String]?
        /// Parameters the recorded server reads from the query or the body alike, added to the
        /// built-in table (``ReplayMatcher/anywhereParameters``).
        public var anywhere: [String]?

        enum CodingKeys: String, CodingKey {
            case strictness
            case ignoreParameters = "ignore_parameters"
            case ignoreHeaders = "ignore_headers"
            case ignoreCookies = "ignore_cookies"
            case anywhere
        }

        public init(strictness: Strictness? = nil, ignoreParameters: [String]? = nil, ignoreHeaders: [String]? = nil,
                    ignoreCookies: [String]? = nil, anywhere: [String]? = nil) {
            self.strictness = strictness
            self.ignoreParameters = ignoreParameters
            self.ignoreHeaders = ignoreHeaders
            self.ignoreCookies = ignoreCookies
            self.anywhere = anywhere
        }

        /// `other` over `self`: its strictness if it has one, the lists joined.
        public func overlaid(by other: Matching?) -> Matching {
            guard let other else { return self }
            func join(_ a: [String]?, _ b: [String]?) -> [String]? {
                let all = (a ?? []) + (b ?? [])
                return all.isEmpty ? nil : all
            }
            return Matching(strictness: other.strictness ?? strictness,
                            ignoreParameters: join(ignoreParameters, other.ignoreParameters),
                            ignoreHeaders: join(ignoreHeaders, other.ignoreHeaders),
                            ignoreCookies: join(ignoreCookies, other.ignoreCookies),
                            anywhere: join(anywhere, other.anywhere))
        }
    }

    /// The recorded answer, as templates.
    public struct Response: Codable, Sendable, Equatable {
        public var status: Int
        public var headers: [Header]
        /// The body (a template), absent when empty.
        public var body: String?
        /// True when ``body`` is base64 of binary bytes (served as is, never templated).
        public var bodyBase64: Bool?
        /// True when the body (or the whole answer) was not recorded and the import made it up.
        public var synthesized: Bool?
        /// How long the recorded server took to answer (HAR `timings.wait`), in milliseconds;
        /// replayed when the chain has ``RecordedChain/delays``.
        public var waitMilliseconds: Int?

        enum CodingKeys: String, CodingKey {
            case status, headers, body
            case bodyBase64 = "body_base64"
            case synthesized
            case waitMilliseconds = "wait_ms"
        }

        public init(status: Int, headers: [Header] = [], body: String? = nil, bodyBase64: Bool? = nil,
                    synthesized: Bool? = nil, waitMilliseconds: Int? = nil) {
            self.status = status
            self.headers = headers
            self.body = body
            self.bodyBase64 = bodyBase64
            self.synthesized = synthesized
            self.waitMilliseconds = waitMilliseconds
        }

        public func header(_ name: String) -> String? {
            headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
        }
    }

    /// One header field (the value a template).
    public struct Header: Codable, Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A SAML message, decoded, with where it goes and how it is encoded there.
    public struct Message: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable {
            /// `SAMLRequest`.
            case request
            /// `SAMLResponse`.
            case response
        }

        public enum Binding: String, Codable, Sendable {
            /// saml-bindings-2.0-os §3.4: DEFLATE, base64, URL-encoded in a query.
            case redirect
            /// saml-bindings-2.0-os §3.2 and the ECP profile (saml-profiles-2.0-os §4.2): the
            /// XML inside a SOAP envelope (PAOS from and to the SP, SOAP to the IdP).
            case soap
            /// saml-bindings-2.0-os §3.5: base64 in a form field.
            case post
        }

        /// Referenced as `⟦msg.NAME|…⟧`.
        public var name: String
        public var kind: Kind
        public var binding: Binding
        /// The entry whose answer serves it (a `Location` or a form in the body); for a message
        /// only ever seen in a request, the entry whose request carried it.
        public var entry: Int
        /// The RelayState that goes with it (a template), if any.
        public var relayState: String?
        /// The root element (the Response; a request sent with the POST binding) carried a
        /// `ds:Signature` (recorded; removed from ``xml`` when re-signed).
        public var responseSigned: Bool?
        /// The Assertion carried a `ds:Signature`.
        public var assertionSigned: Bool?
        /// A Redirect message carried `SigAlg` and `Signature` (the recorded algorithm).
        public var redirectSigAlg: String?
        /// The XML (a template): pretty-printed, unless it is served byte for byte as recorded
        /// (signed and not re-signed).
        public var xml: String

        enum CodingKeys: String, CodingKey {
            case name, kind, binding, entry
            case relayState = "relay_state"
            case responseSigned = "response_signed"
            case assertionSigned = "assertion_signed"
            case redirectSigAlg = "redirect_sig_alg"
            case xml
        }

        public init(name: String, kind: Kind, binding: Binding, entry: Int, relayState: String? = nil,
                    responseSigned: Bool? = nil, assertionSigned: Bool? = nil, redirectSigAlg: String? = nil,
                    xml: String) {
            self.name = name
            self.kind = kind
            self.binding = binding
            self.entry = entry
            self.relayState = relayState
            self.responseSigned = responseSigned
            self.assertionSigned = assertionSigned
            self.redirectSigAlg = redirectSigAlg
            self.xml = xml
        }

        /// True when the recorded message was signed in any way.
        public var wasSigned: Bool { responseSigned == true || assertionSigned == true || redirectSigAlg != nil }
    }

    /// A dynamic value: generated fresh at replay (same shape), bound from what the client
    /// sends, or both (generated, then replaced by what the client sends back).
    public struct Variable: Codable, Sendable, Equatable {
        public enum Kind: String, Codable, Sendable, CaseIterable {
            /// A SAML `ID` (AuthnRequest, Response, Assertion), `InResponseTo`, `SessionIndex`.
            case samlID = "saml-id"
            case relayState = "relay-state"
            /// A timestamp, `offset` seconds from the moment the answer is served.
            case time
            case cookie
            /// A CAS ticket (ST-, TGT-, PT-, PGT-, PGTIOU-, LT-).
            case ticket
            /// A Spring Web Flow `execution` value (`e1s1`).
            case execution
            case csrf
            /// An access, ID or refresh token, an OAuth code.
            case token
            case sessionID = "session-id"
        }

        public var name: String
        public var kind: Kind
        /// Generated at replay (the shape from ``shape``). False: only bound.
        public var generate: Bool
        /// What a generated value looks like.
        public var shape: ValueShape?
        /// `time`: seconds from the moment the answer is served (the recorded delta).
        public var offset: Int?
        /// `time`: `xs:dateTime` (`2024-05-01T12:00:00Z`), `xs:dateTime-ms`, or `http-date`.
        public var format: String?
        /// Where the value is taken from the client's requests.
        public var bind: [Binding]?
        /// The recorded value (left out by `--redact`).
        public var recorded: String?

        public init(name: String, kind: Kind, generate: Bool, shape: ValueShape? = nil, offset: Int? = nil,
                    format: String? = nil, bind: [Binding]? = nil, recorded: String? = nil) {
            self.name = name
            self.kind = kind
            self.generate = generate
            self.shape = shape
            self.offset = offset
            self.format = format
            self.bind = bind
            self.recorded = recorded
        }
    }

    /// Where a bound variable's value comes from in a request.
    public struct Binding: Codable, Sendable, Equatable {
        public enum From: String, Codable, Sendable {
            case query, form, cookie, header
            /// The `ID` of the SAMLRequest the request carries (query or form).
            case samlRequestID = "saml-request-id"
        }

        /// The entry whose request is read (its recorded request must have matched).
        public var entry: Int
        public var from: From
        /// The parameter, cookie or header name (`ID` for `saml-request-id`).
        public var key: String

        public init(entry: Int, from: From, key: String) {
            self.entry = entry
            self.from = from
            self.key = key
        }
    }

    /// One thing `--redact` removed.
    public struct Redaction: Codable, Sendable, Equatable {
        public enum Category: String, Codable, Sendable, CaseIterable {
            case password, token, cookie
            case sessionID = "session-id"
            case personal
        }

        public var category: Category
        /// The entry it was found in (absent when it was found in several).
        public var entry: Int?
        /// Where: `form:j_password`, `header:Authorization`, `set-cookie:JSESSIONID`,
        /// `saml:AttributeValue(mail)`…
        public var field: String
        /// What stands in its place, if anything does.
        public var placeholder: String?

        public init(category: Category, entry: Int?, field: String, placeholder: String? = nil) {
            self.category = category
            self.entry = entry
            self.field = field
            self.placeholder = placeholder
        }
    }

    /// Something the import could not recover.
    public struct Warning: Codable, Sendable, Equatable, CustomStringConvertible {
        public var entry: Int?
        public var message: String

        public init(entry: Int?, message: String) {
            self.entry = entry
            self.message = message
        }

        public var description: String { entry.map { "entry \($0): \(message)" } ?? message }
    }
}
