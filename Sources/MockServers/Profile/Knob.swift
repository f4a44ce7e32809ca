import Foundation

/// A misconfiguration the mock IdP can be switched into, the way real IdPs ship broken. A
/// knob is written `name` or `name=value` (in a profile's `knobs:`, a scenario, `serve
/// --knob`, or the control API). Each one says in one line what it does and which reason
/// code a strict SP answers it with (``expectedSPReason``).
public enum Knob: Sendable, Equatable, Hashable {
    case responseUnsigned
    case assertionUnsigned
    case wrongSigningKey
    case expiredCertificate
    case rsaSHA1
    case wrongIssuer
    case wrongAudience
    case wrongDestination
    case wrongRecipient
    case inResponseToMissing
    case inResponseToWrong
    case expired
    case notYetValid
    /// Seconds the IdP's clock is ahead (positive) or behind (negative).
    case clockSkew(Int)
    case status(StatusKind, message: String?)
    case encryptWrongKey
    case relayStateDropped
    case relayStateAltered
    case acsOther
    /// Base64 of the Response line-wrapped at 64 or 76 characters (CRLF).
    case base64Wrapped(Int)
    /// An attribute left out of the assertion.
    case attributeMissing(String)
    /// The NameID carries this format instead of the one the request asked for.
    case nameIDFormat(String)
    case secondAssertion
    case nameIDComment
    /// The Response padded to at least this many bytes.
    case oversized(Int)
    /// The SSO endpoint answers after this many seconds.
    case slow(Double)
    /// The SSO endpoint never answers; the connection is closed after this many seconds.
    case noAnswer(Double)
    case error500
    case redirectLoop
    /// The entry endpoints' answer cut after half its body (Content-Length promises all).
    case truncatedBody
    /// The entry endpoints' answer cut after half its body by a TCP reset.
    case connectionReset
    /// The IdP's error pages answered with status 200, as Shibboleth IdP's error views are.
    case errorPage200
    /// The SP's session serves its page once and then ends (an SP session that timed out, or
    /// an application that logged the user out, between two visits): the client's next visit
    /// goes back to the IdP, whose session a second login must reuse.
    case spSessionEnds
    /// The IdP and the SP served over https (the harness's local CA).
    case tls
    /// After a login the SP redirects from https to its plain-http twin (implies ``tls``).
    case httpsDowngrade
    /// These mocks served over https with the good certificate (`tls=cas,adfs`).
    case httpsFor([TLSMock])
    /// These mocks served over https presenting a certificate (or protocol) the client must
    /// refuse (`tls-expired=idp`).
    case tlsFault(TLSFault, [TLSMock])
    /// A knob of the mock CAS server (`cas-…`).
    case cas(CASKnob)
    /// A knob of the mock AD FS (`adfs-…`).
    case adfs(ADFSKnob)
    /// A knob of the mock circulation manager (`cm-…`).
    case cm(CMKnob)
    /// The NTLM and Negotiate side: ``NTLMKnob``.
    case ntlm(NTLMKnob)

    public enum StatusKind: String, Sendable, CaseIterable {
        case requester, responder
        case authnFailed = "authn-failed"
    }

    public struct ParseError: Error, CustomStringConvertible, Equatable {
        public let description: String
    }

    /// Every knob name, in the documented order.
    public static let names: [String] = [
        "response-unsigned", "assertion-unsigned", "wrong-signing-key", "expired-certificate", "rsa-sha1",
        "wrong-issuer", "wrong-audience", "wrong-destination", "wrong-recipient", "in-response-to",
        "expired", "not-yet-valid", "clock-skew", "status", "encrypt-wrong-key", "relaystate", "acs-other",
        "base64-wrap", "attribute-missing", "nameid-format", "second-assertion", "nameid-comment",
        "oversized", "slow", "no-answer", "error-500", "redirect-loop", "truncated-body", "connection-reset", "error-page-200", "tls", "https-downgrade",
        "sp-session-ends",
    ] + TLSFault.allCases.map { "tls-\($0.rawValue)" } + CASKnob.names + ADFSKnob.names + CMKnob.names + NTLMKnob.names

    /// Parses `name` or `name=value`.
    public init(parsing text: String) throws {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        let name: String
        let value: String?
        if let eq = trimmed.firstIndex(of: "=") {
            name = String(trimmed[..<eq])
            value = String(trimmed[trimmed.index(after: eq)...])
        } else {
            name = trimmed
            value = nil
        }
        func need(_ what: String) throws -> String {
            guard let value, !value.isEmpty else { throw ParseError(description: "knob `\(name)` needs a value: \(name)=\(what)") }
            return value
        }
        func number(_ what: String) throws -> Double {
            let text = try need(what)
            guard let number = Double(text), number.isFinite else {
                throw ParseError(description: "knob `\(name)`: `\(text)` is not a number (\(name)=\(what))")
            }
            return number
        }
        func noValue(_ knob: Knob) throws -> Knob {
            guard value == nil else { throw ParseError(description: "knob `\(name)` takes no value (got `\(value!)`)") }
            return knob
        }
        switch name {
        case "response-unsigned": self = try noValue(.responseUnsigned)
        case "assertion-unsigned": self = try noValue(.assertionUnsigned)
        case "wrong-signing-key": self = try noValue(.wrongSigningKey)
        case "expired-certificate": self = try noValue(.expiredCertificate)
        case "rsa-sha1": self = try noValue(.rsaSHA1)
        case "wrong-issuer": self = try noValue(.wrongIssuer)
        case "wrong-audience": self = try noValue(.wrongAudience)
        case "wrong-destination": self = try noValue(.wrongDestination)
        case "wrong-recipient": self = try noValue(.wrongRecipient)
        case "in-response-to":
            switch try need("missing|wrong") {
            case "missing": self = .inResponseToMissing
            case "wrong": self = .inResponseToWrong
            case let other: throw ParseError(description: "knob `in-response-to`: `\(other)` is not missing or wrong")
            }
        case "expired": self = try noValue(.expired)
        case "not-yet-valid": self = try noValue(.notYetValid)
        case "clock-skew":
            let seconds = try number("SECONDS (e.g. -300)")
            guard abs(seconds) <= 366 * 86400 else { throw ParseError(description: "knob `clock-skew`: \(seconds) s is more than a year") }
            self = .clockSkew(Int(seconds))
        case "status":
            let text = try need("requester|responder|authn-failed[:MESSAGE]")
            let parts = text.split(separator: ":", maxSplits: 1).map(String.init)
            guard let kind = StatusKind(rawValue: parts[0]) else {
                throw ParseError(description: "knob `status`: `\(parts[0])` is not one of \(StatusKind.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            self = .status(kind, message: parts.count > 1 ? parts[1] : nil)
        case "encrypt-wrong-key": self = try noValue(.encryptWrongKey)
        case "relaystate":
            switch try need("drop|alter") {
            case "drop": self = .relayStateDropped
            case "alter": self = .relayStateAltered
            case let other: throw ParseError(description: "knob `relaystate`: `\(other)` is not drop or alter")
            }
        case "acs-other": self = try noValue(.acsOther)
        case "base64-wrap":
            let width = try number("64|76")
            guard width == 64 || width == 76 else { throw ParseError(description: "knob `base64-wrap`: width must be 64 (PEM) or 76 (MIME), got \(width)") }
            self = .base64Wrapped(Int(width))
        case "attribute-missing": self = .attributeMissing(try need("ATTRIBUTE-NAME"))
        case "nameid-format": self = .nameIDFormat(try need("FORMAT-URI"))
        case "second-assertion": self = try noValue(.secondAssertion)
        case "nameid-comment": self = try noValue(.nameIDComment)
        case "oversized":
            let bytes = try number("BYTES")
            guard bytes > 0, bytes <= 64 * 1024 * 1024 else { throw ParseError(description: "knob `oversized`: \(bytes) bytes is outside 1…64 MiB") }
            self = .oversized(Int(bytes))
        case "slow":
            let seconds = try number("SECONDS")
            guard seconds >= 0, seconds <= 600 else { throw ParseError(description: "knob `slow`: \(seconds) s is outside 0…600") }
            self = .slow(seconds)
        case "no-answer":
            let seconds = value == nil ? 30 : try number("SECONDS")
            guard seconds >= 0, seconds <= 600 else { throw ParseError(description: "knob `no-answer`: \(seconds) s is outside 0…600") }
            self = .noAnswer(seconds)
        case "error-500": self = try noValue(.error500)
        case "redirect-loop": self = try noValue(.redirectLoop)
        case "truncated-body": self = try noValue(.truncatedBody)
        case "connection-reset": self = try noValue(.connectionReset)
        case "error-page-200": self = try noValue(.errorPage200)
        case "sp-session-ends": self = try noValue(.spSessionEnds)
        case "tls": self = value == nil ? .tls : .httpsFor(try TLSMock.parseList(value!, knob: name))
        case "https-downgrade": self = try noValue(.httpsDowngrade)
        case _ where name.hasPrefix("tls-"):
            guard let fault = TLSFault(rawValue: String(name.dropFirst(4))) else {
                let faults = TLSFault.allCases.map { "tls-\($0.rawValue)" }
                throw ParseError(description: "unknown knob `\(name)`\(NameSuggestion.didYouMean(name, in: faults)); the TLS faults are "
                    + faults.joined(separator: ", "))
            }
            self = .tlsFault(fault, try TLSMock.parseList(try need("idp|sp|auth|cas|adfs|cm[,…]"), knob: name))
        default:
            if let knob = try CASKnob(name: name, value: value) {
                self = .cas(knob)
                return
            }
            if let knob = try ADFSKnob(name: name, value: value) {
                self = .adfs(knob)
                return
            }
            if let knob = try CMKnob(name: name, value: value) {
                self = .cm(knob)
                return
            }
            if let knob = try NTLMKnob(name: name, value: value) {
                self = .ntlm(knob)
                return
            }
            throw ParseError(description: "unknown knob `\(name)`\(NameSuggestion.didYouMean(name, in: Knob.names)); "
                + "`samlharness knobs` lists every knob and what it does")
        }
    }

    /// The knob as written (`name` or `name=value`).
    public var text: String {
        switch self {
        case .responseUnsigned: "response-unsigned"
        case .assertionUnsigned: "assertion-unsigned"
        case .wrongSigningKey: "wrong-signing-key"
        case .expiredCertificate: "expired-certificate"
        case .rsaSHA1: "rsa-sha1"
        case .wrongIssuer: "wrong-issuer"
        case .wrongAudience: "wrong-audience"
        case .wrongDestination: "wrong-destination"
        case .wrongRecipient: "wrong-recipient"
        case .inResponseToMissing: "in-response-to=missing"
        case .inResponseToWrong: "in-response-to=wrong"
        case .expired: "expired"
        case .notYetValid: "not-yet-valid"
        case .clockSkew(let s): "clock-skew=\(s)"
        case .status(let kind, let message): "status=\(kind.rawValue)\(message.map { ":\($0)" } ?? "")"
        case .encryptWrongKey: "encrypt-wrong-key"
        case .relayStateDropped: "relaystate=drop"
        case .relayStateAltered: "relaystate=alter"
        case .acsOther: "acs-other"
        case .base64Wrapped(let w): "base64-wrap=\(w)"
        case .attributeMissing(let a): "attribute-missing=\(a)"
        case .nameIDFormat(let f): "nameid-format=\(f)"
        case .secondAssertion: "second-assertion"
        case .nameIDComment: "nameid-comment"
        case .oversized(let b): "oversized=\(b)"
        case .slow(let s): "slow=\(Self.format(s))"
        case .noAnswer(let s): "no-answer=\(Self.format(s))"
        case .error500: "error-500"
        case .redirectLoop: "redirect-loop"
        case .truncatedBody: "truncated-body"
        case .connectionReset: "connection-reset"
        case .errorPage200: "error-page-200"
        case .spSessionEnds: "sp-session-ends"
        case .tls: "tls"
        case .httpsDowngrade: "https-downgrade"
        case .httpsFor(let mocks): "tls=\(mocks.map(\.rawValue).joined(separator: ","))"
        case .tlsFault(let fault, let mocks): "tls-\(fault.rawValue)=\(mocks.map(\.rawValue).joined(separator: ","))"
        case .cas(let knob): knob.text
        case .adfs(let knob): knob.text
        case .cm(let knob): knob.text
        case .ntlm(let knob): knob.text
        }
    }

    /// Whether some mock listens on https under this knob.
    public var needsTLS: Bool { !httpsMocks.isEmpty }

    /// `tls=MOCK,…` and `tls-FAULT=MOCK,…`: they set up listeners, so they act only when the
    /// mocks start (the control API refuses them at run time).
    public var choosesListeners: Bool {
        switch self {
        case .httpsFor, .tlsFault: true
        default: false
        }
    }

    /// The mocks this knob puts on https (``tls`` and ``httpsDowngrade``: the IdP and the SP).
    public var httpsMocks: [TLSMock] {
        switch self {
        case .tls, .httpsDowngrade: [.idp, .sp]
        case .httpsFor(let mocks), .tlsFault(_, let mocks): mocks
        default: []
        }
    }

    /// Seconds as written: whole seconds bare, else to the millisecond the mocks wait by (a
    /// scaled `slow=3` at 0.1 reads `slow=0.3`, not `0.30000000000000004`).
    private static func format(_ seconds: Double) -> String {
        let milliseconds = (seconds * 1000).rounded() / 1000
        return milliseconds == milliseconds.rounded() ? String(Int(milliseconds)) : String(milliseconds)
    }
}

extension Knob {
    /// The knob with its durations multiplied by `factor` (`run --time-scale`): the waits
    /// (`slow`, `no-answer`) and the lifetimes that race them (`cas-ticket-lifetime`,
    /// `cm-token-lifetime`), so that every "answers after" and "expires after" keeps its order.
    /// Every other knob is returned as it is.
    public func scaled(by factor: Double) -> Knob {
        switch self {
        case .slow(let seconds): .slow(seconds * factor)
        case .noAnswer(let seconds): .noAnswer(seconds * factor)
        case .cas(.ticketLifetime(let seconds)): .cas(.ticketLifetime(seconds * factor))
        case .cm(.tokenLifetime(let seconds)): .cm(.tokenLifetime(seconds * factor))
        default: self
        }
    }

    /// Whether ``scaled(by:)`` changes the knob.
    public var isTimed: Bool {
        switch self {
        case .slow, .noAnswer, .cas(.ticketLifetime), .cm(.tokenLifetime): true
        default: false
        }
    }
}
