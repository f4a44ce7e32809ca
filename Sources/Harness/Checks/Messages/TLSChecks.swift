import Foundation
import MockServers

/// The client sent no HTTP request over a connection whose certificate it had to refuse (a
/// `tls-FAULT=MOCK` knob: unknown CA, self-signed, expired, not yet valid, another host name,
/// a missing intermediate, a weak key, SHA-1), and reported a failure naming the problem.
/// RFC 9110 §4.3.4; RFC 5280 §6; RFC 6125 §6; OWASP MASVS-NETWORK-1.
struct TLSCertificateValidatedCheck: Check {
    static let id = "security.tls-certificate-validated"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        TLSFaultJudgement.judge(context, faults: { $0.isCertificateFault }, words: TLSFaultJudgement.certificateWords,
                                naming: "a certificate problem")
    }
}

/// The client completed no handshake with a server offering only TLS 1.0/1.1 (`tls-legacy=MOCK`).
/// RFC 8996; RFC 9325 §3.1.1.
struct TLSLegacyRefusedCheck: Check {
    static let id = "security.tls-legacy-refused"

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        TLSFaultJudgement.judge(context, faults: { !$0.isCertificateFault }, words: TLSFaultJudgement.protocolWords,
                                naming: "a TLS problem")
    }
}

/// What both TLS checks share: which listeners served a fault, the first request sent over
/// one of them, the handshakes the client ended there, and the client's own account.
enum TLSFaultJudgement {
    static let certificateWords = ["certificate", "cert", "x509", "x.509", "trust", "ssl", "tls", "verify", "self-signed",
                                   "self signed", "expired", "issuer", "hostname", "host name"]
    static let protocolWords = ["tls", "ssl", "protocol", "version", "handshake", "sigalg", "cipher"]

    /// The faults the scenario's knobs serve, with the mocks serving each.
    static func faults(_ scenario: Scenario) -> [(fault: TLSFault, mocks: [String])] {
        (scenario.knobs ?? []).compactMap { text in
            guard case .tlsFault(let fault, let mocks)? = try? Knob(parsing: text) else { return nil }
            return (fault, mocks.map(\.rawValue))
        }
    }

    static func judge(_ context: CheckContext, faults select: (TLSFault) -> Bool, words: [String], naming: String) -> CheckOutcome {
        let served = faults(context.scenario).filter { select($0.fault) }
        guard !served.isEmpty else {
            return .notApplicable("no mock served a faulty certificate or protocol of this kind in this run (knobs tls-…)")
        }
        func fault(of entry: TrafficEntry) -> TLSFault? {
            guard entry.request.origin.lowercased().hasPrefix("https://") else { return nil }
            return served.first { $0.mocks.contains(entry.mock) }?.fault
        }
        if let sent = context.entries.first(where: { fault(of: $0) != nil }), let problem = fault(of: sent) {
            let carried = carried(by: sent, context)
            let how = context.handshakes.first { fault(of: $0) != nil }
            var evidence = [MessageTraffic.evidence(sent, "sent although \(problem.statement)",
                                                    excerpt: "\(sent.request.method) \(sent.request.url)")]
            if let how {
                evidence.append(MessageTraffic.evidence(how, "a connection it did refuse", excerpt: how.handshake?.summary))
            }
            return .fail("the client sent #\(sent.sequence) \(sent.request.method) \(sent.request.path) to \(sent.request.origin), where \(problem.statement): it had to refuse the connection"
                         + (carried.isEmpty ? "" : "; the request carried \(carried.joined(separator: ", "))"), evidence)
        }
        let refused = context.handshakes.filter { fault(of: $0) != nil }
        guard let first = refused.first, let record = first.handshake, let problem = fault(of: first) else {
            let where_ = served.flatMap(\.mocks).joined(separator: ", ")
            return .notApplicable("the client never connected to the mock serving the fault (\(where_)): nothing to judge")
        }
        let handshakeEvidence = MessageTraffic.evidence(first, "the connection the client ended", excerpt: record.summary)
        if context.execution.byHand {
            return .pass("the client sent nothing to \(first.request.origin), where \(problem.statement) (\(outcome(record)))", [handshakeEvidence])
        }
        if context.execution.claimsSuccess {
            return .fail("the client sent nothing to \(first.request.origin) yet reported success", [handshakeEvidence])
        }
        let said = (context.execution.report?.error).flatMap { $0.isEmpty ? nil : $0 } ?? context.execution.errorText
        let lowered = said.lowercased()
        let saidEvidence = Evidence(detail: "the client's error", excerpt: MessageTraffic.shorten(said))
        guard words.contains(where: lowered.contains) else {
            return .fail("the client refused the connection to \(first.request.origin), where \(problem.statement), but its error does not name \(naming)",
                         [handshakeEvidence, saidEvidence])
        }
        return .pass("the client refused the connection to \(first.request.origin), where \(problem.statement) (\(outcome(record))), and reported it", [handshakeEvidence, saidEvidence])
    }

    static func outcome(_ record: TLSHandshakeRecord) -> String {
        switch record.outcome {
        case .alert(let name): "alert \(name)"
        case .failed(let reason): "handshake failed: \(reason)"
        case .closedAfterHandshake: "closed after the handshake, no request"
        case .closedDuringHandshake: "closed during the handshake"
        }
    }

    /// What the request carried that a man in the middle would now have.
    static func carried(by entry: TrafficEntry, _ context: CheckContext) -> [String] {
        let request = entry.request
        var found: [String] = []
        if let authorization = request.header("Authorization") {
            found.append("Authorization: \(authorization.split(separator: " ").first.map(String.init) ?? "") credentials")
        }
        if Credentials(context).password.flatMap(SecretForms.init)?.find(in: entry) != nil, request.header("Authorization") == nil {
            found.append("the password")
        }
        if request.header("Cookie") != nil { found.append("cookies (\(request.cookies.map(\.name).joined(separator: ", ")))") }
        let fields = request.query + request.formFields
        for name in ["SAMLResponse", "SAMLRequest", "ticket", "access_token"] where fields.contains(where: { $0.name == name }) {
            found.append(name == "ticket" ? "a CAS ticket" : name == "access_token" ? "a bearer token" : "a \(name)")
        }
        if request.bodyText.contains("Envelope"), request.bodyText.contains("Response") || request.bodyText.contains("Security") {
            found.append("a SOAP message")
        }
        return found
    }
}
