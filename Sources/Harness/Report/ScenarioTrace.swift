import Foundation

/// What a scenario's client and the mocks said to each other, for the report: every exchange
/// of the traffic log with its request and answer (headers, bodies capped at
/// ``TraceLimits/bodyBytes``), the mocks' annotations, and the SAML messages in it decoded
/// and pretty-printed. Secrets are masked by ``SecretMasker`` before a trace is written
/// anywhere, unless the user asked to see them (`--show-secrets`).
public struct ScenarioTrace: Codable, Sendable, Equatable {
    public var exchanges: [TraceExchange]
    /// Whether secrets were masked (``SecretMasker``) in this trace and the result around it.
    public var masked: Bool
    /// The scenario's own secrets (the user's password, the second-factor code), known while
    /// the run is in memory so that ``SecretMasker`` can mask them anywhere; never encoded.
    public var secrets: [String]

    enum CodingKeys: String, CodingKey {
        case exchanges, masked
    }

    public init(exchanges: [TraceExchange], masked: Bool = false, secrets: [String] = []) {
        self.exchanges = exchanges
        self.masked = masked
        self.secrets = secrets
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        exchanges = try container.decode([TraceExchange].self, forKey: .exchanges)
        masked = try container.decodeIfPresent(Bool.self, forKey: .masked) ?? false
        secrets = []
    }
}

/// How much of a body a trace keeps.
public enum TraceLimits {
    /// Bodies (and decoded messages) longer than this are cut and marked `truncated`.
    public static let bodyBytes = 64 << 10
}

/// One exchange of a trace.
public struct TraceExchange: Codable, Sendable, Equatable {
    /// The traffic log's sequence number (what evidence calls `exchange`).
    public var sequence: Int
    /// The mock that answered: `idp`, `sp`, `auth`, `proxy`, `control`, `cas`, `adfs`, `cm`.
    public var mock: String
    /// Milliseconds from the scenario's first exchange to this request's head.
    public var atMilliseconds: Int
    /// Milliseconds from the full request to the answer being ready.
    public var waitMilliseconds: Int
    public var request: TraceRequest
    /// nil when the mock never answered.
    public var response: TraceResponse?
    public var annotations: [String: String]?
    /// The SAML (and SOAP, WS-Trust, CAS) messages found in the request and answer.
    public var messages: [DecodedMessage]?

    enum CodingKeys: String, CodingKey {
        case sequence, mock
        case atMilliseconds = "at_ms"
        case waitMilliseconds = "wait_ms"
        case request, response, annotations, messages
    }

    public init(sequence: Int, mock: String, atMilliseconds: Int = 0, waitMilliseconds: Int = 0, request: TraceRequest,
                response: TraceResponse?, annotations: [String: String]? = nil, messages: [DecodedMessage]? = nil) {
        self.sequence = sequence
        self.mock = mock
        self.atMilliseconds = atMilliseconds
        self.waitMilliseconds = waitMilliseconds
        self.request = request
        self.response = response
        self.annotations = annotations
        self.messages = messages
    }
}

extension TraceExchange {
    /// For a TLS connection that carried no request (method `TLS`): what ended it, in words
    /// (`alert unknown_ca`, `closed after the handshake`…); nil for an HTTP exchange.
    public var tlsOutcome: String? {
        guard request.method == "TLS", let outcome = annotations?["tls.outcome"] else { return nil }
        if outcome.hasPrefix("alert:") { return "client alert " + outcome.dropFirst(6) }
        if outcome.hasPrefix("failed:") { return "handshake failed: " + outcome.dropFirst(7) }
        return outcome.replacingOccurrences(of: "-", with: " ")
    }
}

/// A header as sent, name and value.
public struct TraceHeader: Codable, Sendable, Equatable {
    public var name: String
    public var value: String

    public init(_ name: String, _ value: String) {
        self.name = name
        self.value = value
    }
}

/// A request or answer body as the trace keeps it: text (UTF-8) up to the cap, or a note that
/// it was binary.
public struct TraceBody: Codable, Sendable, Equatable {
    /// The text; nil for a binary body (a PDF, an EPUB).
    public var text: String?
    /// The body's full size in bytes.
    public var bytes: Int
    /// The text was cut at ``TraceLimits/bodyBytes``.
    public var truncated: Bool?

    public init(text: String?, bytes: Int, truncated: Bool? = nil) {
        self.text = text
        self.bytes = bytes
        self.truncated = truncated
    }

    /// The body of `bytes`, kept as text when it is UTF-8, cut at `limit` bytes (on a
    /// character boundary).
    public init?(_ bytes: [UInt8], limit: Int = TraceLimits.bodyBytes) {
        guard !bytes.isEmpty else { return nil }
        self.bytes = bytes.count
        let head = Array(bytes.prefix(limit))
        if let text = String(validating: head, as: UTF8.self) ?? Self.cutAtCharacter(head) {
            self.text = text
            truncated = bytes.count > limit ? true : nil
        } else {
            text = nil
            truncated = nil
        }
    }

    /// A cut may fall inside a UTF-8 sequence: drop up to three trailing bytes to find the
    /// boundary. Nil when the bytes are not UTF-8 at all.
    static func cutAtCharacter(_ head: [UInt8]) -> String? {
        for drop in 1...3 where head.count > drop {
            if let text = String(validating: head.dropLast(drop), as: UTF8.self) { return text }
        }
        return nil
    }
}

public struct TraceRequest: Codable, Sendable, Equatable {
    public var method: String
    /// The URL the client asked for (absolute).
    public var url: String
    public var headers: [TraceHeader]
    public var body: TraceBody?

    public init(method: String, url: String, headers: [TraceHeader], body: TraceBody?) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

public struct TraceResponse: Codable, Sendable, Equatable {
    public var status: Int
    public var headers: [TraceHeader]
    public var body: TraceBody?

    public init(status: Int, headers: [TraceHeader], body: TraceBody?) {
        self.status = status
        self.headers = headers
        self.body = body
    }
}

/// A protocol message found in an exchange, decoded from its binding and pretty-printed.
public struct DecodedMessage: Codable, Sendable, Equatable {
    /// Where it was: `request.query`, `request.form`, `request.body`, `response.location`,
    /// `response.form`, `response.body`.
    public var location: String
    /// `SAMLRequest`, `SAMLResponse`, `SAMLart`, `SOAP`, `WS-Trust`, `CAS`…
    public var name: String
    /// The pretty-printed XML (or the value, for an artifact), capped like bodies.
    public var xml: String?
    public var relayState: String?
    /// What the binding layer found wrong on the way (`deviation-code: explanation`).
    public var findings: [String]?
    /// Why it could not be decoded.
    public var error: String?

    enum CodingKeys: String, CodingKey {
        case location, name, xml
        case relayState = "relay_state"
        case findings, error
    }

    public init(location: String, name: String, xml: String? = nil, relayState: String? = nil,
                findings: [String]? = nil, error: String? = nil) {
        self.location = location
        self.name = name
        self.xml = xml
        self.relayState = relayState
        self.findings = findings
        self.error = error
    }
}
