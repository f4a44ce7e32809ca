import Foundation
import SAMLCore

/// The measurements behind `samlharness bench`.
struct SigningBenchmark {
    let key: PrivateKey
    let certificate: Certificate
    let seconds: Double
    let runOpenSSLSpeed: Bool

    struct Figure: Codable {
        let name: String
        let perSecond: Double
        let count: Int
    }

    struct Report: Codable {
        let date: String
        let keyBits: Int
        let opensslSpeedSignsPerSecond: Double?
        let evpSignsPerSecond: Double
        let figures: [Figure]
        /// Signed Responses/s over the baseline (openssl speed when measured, else EVP).
        let headlineRatio: Double

        var table: String {
            let baseline = opensslSpeedSignsPerSecond ?? evpSignsPerSecond
            var lines = ["measurement                                      per second   vs raw RSA-\(keyBits) sign"]
            func row(_ name: String, _ value: Double) -> String {
                let ratio = String(format: "%5.1f%%", value / baseline * 100)
                return name.padding(toLength: 48, withPad: " ", startingAt: 0)
                    + String(format: "%11.0f", value) + "   " + ratio
            }
            if let s = opensslSpeedSignsPerSecond { lines.append(row("openssl speed rsa2048 (sign)", s)) }
            lines.append(row("OpenSSL EVP sign loop, in process", evpSignsPerSecond))
            for f in figures { lines.append(row(f.name, f.perSecond)) }
            lines.append(String(format: "headline: signed Responses/s = %.1f%% of the raw RSA-%d sign rate (target ≥ 60%%)",
                                headlineRatio * 100, keyBits))
            return lines.joined(separator: "\n")
        }

        func jsonData() throws -> Data {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            return try encoder.encode(self)
        }
    }

    func run() throws -> Report {
        let speed = runOpenSSLSpeed ? Self.opensslSpeed(seconds: max(1, Int(seconds.rounded()))) : nil
        let evp = measure { _ in _ = RawSigning.signLoop(key: key, count: 20) } * 20
        let template = BenchmarkMessages.response
        let signer = XMLSigner(key: key, certificate: certificate)
        let verifier = XMLSignatureVerifier(trustedCertificates: [certificate])
        var signedOnce = ""
        let signResponse = measure { _ in
            signedOnce = (try? signer.sign(xml: template, elementIDs: [BenchmarkMessages.responseID])) ?? ""
        }
        let signBoth = measure { _ in
            _ = try? signer.sign(xml: template, elementIDs: [BenchmarkMessages.assertionID, BenchmarkMessages.responseID])
        }
        let bytes = Array(signedOnce.utf8)
        let verify = measure { _ in
            if let doc = try? XMLDocument(parsing: bytes) { _ = try? verifier.verify(doc.root) }
        }
        let figures = [
            Figure(name: "signed Responses (parse+sign+serialise)", perSecond: signResponse, count: 0),
            Figure(name: "Responses with signed Assertion too (2 sigs)", perSecond: signBoth, count: 0),
            Figure(name: "verifications (parse+hardened verify)", perSecond: verify, count: 0),
        ]
        let baseline = speed ?? evp
        let formatter = ISO8601DateFormatter()
        return Report(date: formatter.string(from: Date()), keyBits: key.bits, opensslSpeedSignsPerSecond: speed,
                      evpSignsPerSecond: evp, figures: figures, headlineRatio: signResponse / baseline)
    }

    /// Runs `body` repeatedly for `seconds` and returns iterations per second.
    private func measure(_ body: (Int) -> Void) -> Double {
        for i in 0..<20 { body(i) }  // warm-up
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(seconds * 1e9)
        var n = 0
        var now = start
        while now < deadline {
            body(n)
            n += 1
            now = DispatchTime.now().uptimeNanoseconds
        }
        return Double(n) / (Double(now - start) / 1e9)
    }

    /// `openssl speed -seconds N rsa2048` sign/s, or nil when the CLI is missing or fails.
    /// Started with ``BenchProcess`` (signal mask emptied, dispositions reset): `openssl speed`
    /// times itself with SIGALRM, and a child inheriting the mask of a Dispatch worker thread
    /// (where an async command runs) never sees the alarm and runs forever.
    static func opensslSpeed(seconds: Int) -> Double? {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("samlharness-openssl-speed-\(getpid()).txt")
        defer { try? FileManager.default.removeItem(at: output) }
        guard let openssl = ["/usr/bin/openssl", "/usr/local/bin/openssl", "/opt/homebrew/bin/openssl"]
            .first(where: FileManager.default.isExecutableFile(atPath:)),
              let process = try? BenchProcess(executable: openssl, arguments: ["speed", "-seconds", String(seconds), "rsa2048"],
                                              stdoutFile: output.path) else { return nil }
        // Sign and verify, `seconds` each, plus start-up; bounded whatever happens.
        let exit = process.wait(timeout: .seconds(4 * seconds + 30)) ?? process.terminate(grace: .seconds(2))
        guard exit.status == 0, let text = try? String(contentsOf: output, encoding: .utf8) else { return nil }
        // "rsa 2048 bits 0.000236s 0.000007s   4232.6 139872.2"
        for line in text.split(separator: "\n") where line.hasPrefix("rsa 2048 bits") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 7 { return Double(fields[5]) }
        }
        return nil
    }
}

enum BenchmarkMessages {
    static let responseID = "_bench-response-0001"
    static let assertionID = "_bench-assertion-0001"
    /// A typical Shibboleth-shaped Response (~2.4 kB before signing).
    static let response = """
    <samlp:Response xmlns:samlp="urn:oasis:names:tc:SAML:2.0:protocol" xmlns:saml="urn:oasis:names:tc:SAML:2.0:assertion" \
    ID="\(responseID)" Version="2.0" IssueInstant="2030-01-01T00:00:00Z" \
    Destination="https://sp.example.org/Shibboleth.sso/SAML2/POST" InResponseTo="_req1">\
    <saml:Issuer>https://idp.example.org/idp/shibboleth</saml:Issuer>\
    <samlp:Status><samlp:StatusCode Value="urn:oasis:names:tc:SAML:2.0:status:Success"/></samlp:Status>\
    <saml:Assertion ID="\(assertionID)" Version="2.0" IssueInstant="2030-01-01T00:00:00Z">\
    <saml:Issuer>https://idp.example.org/idp/shibboleth</saml:Issuer>\
    <saml:Subject><saml:NameID Format="urn:oasis:names:tc:SAML:2.0:nameid-format:transient">_c4a0f5e2b1d3</saml:NameID>\
    <saml:SubjectConfirmation Method="urn:oasis:names:tc:SAML:2.0:cm:bearer">\
    <saml:SubjectConfirmationData InResponseTo="_req1" NotOnOrAfter="2030-01-01T00:05:00Z" \
    Recipient="https://sp.example.org/Shibboleth.sso/SAML2/POST"/></saml:SubjectConfirmation></saml:Subject>\
    <saml:Conditions NotBefore="2029-12-31T23:59:00Z" NotOnOrAfter="2030-01-01T00:05:00Z">\
    <saml:AudienceRestriction><saml:Audience>https://sp.example.org/shibboleth</saml:Audience></saml:AudienceRestriction></saml:Conditions>\
    <saml:AuthnStatement AuthnInstant="2030-01-01T00:00:00Z" SessionIndex="_s1">\
    <saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext>\
    </saml:AuthnStatement><saml:AttributeStatement>\
    <saml:Attribute Name="urn:oid:0.9.2342.19200300.100.1.3" FriendlyName="mail"><saml:AttributeValue>alice@example.org</saml:AttributeValue></saml:Attribute>\
    <saml:Attribute Name="urn:oid:1.3.6.1.4.1.5923.1.1.1.9" FriendlyName="eduPersonScopedAffiliation"><saml:AttributeValue>member@example.org</saml:AttributeValue><saml:AttributeValue>staff@example.org</saml:AttributeValue></saml:Attribute>\
    <saml:Attribute Name="urn:oid:2.5.4.42" FriendlyName="givenName"><saml:AttributeValue>Alice</saml:AttributeValue></saml:Attribute>\
    </saml:AttributeStatement></saml:Assertion></samlp:Response>
    """
}
