import Foundation

/// Strict SP-side validation of a SAML 2.0 Response, the way a careful service provider does
/// it: safe parsing, structural anti-wrapping checks, signatures against the configured IdP
/// keys only, decryption, then a set of small named policies (``SPValidationPolicy``), each
/// with a stable reason code.
///
/// ```swift
/// let validator = SPValidator(configuration: .init(
///     idpEntityID: "https://idp.example.org/idp/shibboleth", idpKeys: [idpCert.publicKey],
///     spEntityID: "https://sp.example.org/shibboleth",
///     acsURL: "https://sp.example.org/Shibboleth.sso/SAML2/POST", requestID: "_abc"))
/// switch validator.validate(Array(xml.utf8)) {
/// case .success(let a): print("valid: nameid=\(a.nameID.value)")
/// case .failure(let f): print("invalid: \(f)")
/// }
/// ```
public struct SPValidator: Sendable {
    /// Which signatures the SP insists on.
    public enum SignatureRequirement: String, Sendable {
        /// The consumed assertion must be covered by a trusted signature: its own, or the
        /// Response's (the common SP default).
        case responseOrAssertion = "either"
        /// The assertion itself must be signed (`WantAssertionsSigned="true"`).
        case assertion
        /// The Response must be signed.
        case response
        /// Both.
        case both
    }

    /// How InResponseTo is judged.
    public enum Correlation: Sendable, Equatable {
        /// saml-profiles-2.0-os §4.1.4.2–4.1.4.3 to the letter: a solicited Response answers
        /// the request sent; an unsolicited one carries no InResponseTo.
        case strict
        /// Shibboleth SP's Bearer rule: InResponseTo is judged only when `checkCorrelation`
        /// is on (a solicited Response's SubjectConfirmationData must answer the request) or
        /// `blockUnsolicited` is (a Response without InResponseTo is refused).
        case bearerRule(checkCorrelation: Bool, blockUnsolicited: Bool)
    }

    /// Which assertions of a Response the SP consumes.
    public enum AssertionSelection: Sendable, Equatable {
        /// Exactly one; more is a refusal (`assertion.multiple`).
        case exactlyOne
        /// Every assertion, as Shibboleth SP does: the plain ones, then the encrypted ones, each
        /// judged on its own; one that fails is skipped (the first failure is reported when
        /// none passes), the first valid one gives the subject, and the attributes of all
        /// valid ones are merged in that order.
        case all
    }

    public struct Configuration: Sendable {
        public var idpEntityID: String
        public var idpKeys: [PublicKey]
        public var spEntityID: String
        public var acsURL: String
        /// The ID of the AuthnRequest this Response answers; nil for IdP-initiated SSO.
        public var requestID: String?
        /// Accept a Response without InResponseTo even when a request ID is configured.
        public var allowUnsolicited: Bool
        public var clock: SAMLClock
        /// Clock skew allowed on every time check, in seconds (Shibboleth SP default: 180).
        public var skew: TimeInterval
        public var allowSHA1: Bool
        public var signatureRequirement: SignatureRequirement
        public var decryptionKeys: [PrivateKey]
        public var replayCache: ReplayCache?
        public var limits: XMLParsingLimits
        public var correlation: Correlation = .strict
        public var assertionSelection: AssertionSelection = .exactlyOne
        /// Shibboleth SP's MessageFlow rule: the Response's IssueInstant must be no more than
        /// `skew` in the future and no older than this plus `skew`. Nil: not checked.
        public var messageLifetime: TimeInterval?
        /// Signature and digest algorithm URIs refused (beyond SHA-1, which `allowSHA1` governs).
        public var excludedAlgorithms: Set<String> = []

        public init(idpEntityID: String, idpKeys: [PublicKey], spEntityID: String, acsURL: String,
                    requestID: String? = nil, allowUnsolicited: Bool = false, clock: SAMLClock = SystemClock(),
                    skew: TimeInterval = 180, allowSHA1: Bool = false,
                    signatureRequirement: SignatureRequirement = .responseOrAssertion,
                    decryptionKeys: [PrivateKey] = [], replayCache: ReplayCache? = nil,
                    limits: XMLParsingLimits = .default) {
            self.idpEntityID = idpEntityID
            self.idpKeys = idpKeys
            self.spEntityID = spEntityID
            self.acsURL = acsURL
            self.requestID = requestID
            self.allowUnsolicited = allowUnsolicited
            self.clock = clock
            self.skew = skew
            self.allowSHA1 = allowSHA1
            self.signatureRequirement = signatureRequirement
            self.decryptionKeys = decryptionKeys
            self.replayCache = replayCache
            self.limits = limits
        }
    }

    public let configuration: Configuration
    /// The rules applied after the signature and structure checks, in order.
    public let policies: [any SPValidationPolicy]

    /// The default policy set, in the order reported.
    public static let defaultPolicies: [any SPValidationPolicy] = [
        StatusPolicy(), IssuerPolicy(), DestinationPolicy(), InResponseToPolicy(),
        SubjectConfirmationPolicy(), ConditionsTimePolicy(), AudiencePolicy(), AuthnStatementPolicy(),
        ReplayPolicy(),
    ]

    public init(configuration: Configuration, policies: [any SPValidationPolicy] = SPValidator.defaultPolicies) {
        self.configuration = configuration
        self.policies = policies
    }

    /// Validates the XML bytes of a Response.
    public func validate(_ bytes: [UInt8]) -> Result<ValidatedAssertion, ValidationFailure> {
        do {
            return .success(try validateThrowing(bytes))
        } catch let failure as ValidationFailure {
            return .failure(failure)
        } catch {
            return .failure(ValidationFailure(.responseMalformed, "\(error)"))
        }
    }

    /// Validates, throwing a ``ValidationFailure``.
    public func validateThrowing(_ bytes: [UInt8]) throws -> ValidatedAssertion {
        let document: XMLDocument
        do {
            document = try XMLDocument(parsing: bytes, limits: configuration.limits)
        } catch let error as XMLError {
            throw ValidationFailure(.xmlRefused, error.description, line: error.line)
        }
        let root = document.root
        guard root.is("Response", SAMLNamespace.protocol_) else {
            throw ValidationFailure(.responseMalformed, "the root element is {\(root.namespaceURI ?? "")}\(root.localName), not samlp:Response", line: root.line)
        }
        let duplicates = document.registerIDs()
        if !duplicates.isEmpty {
            throw ValidationFailure(.signatureDuplicateID, "ID \"\(duplicates.sorted().joined(separator: "\", \""))\" occurs more than once in the document")
        }
        let verifier = XMLSignatureVerifier(trustedKeys: configuration.idpKeys, allowSHA1: configuration.allowSHA1)

        // 1. Structure: assertions only as direct children of the one Response (anything
        //    else is the shape of a signature-wrapping attack, XSW1–XSW8).
        try StructureCheck.check(root, verifier: verifier, oneAssertion: configuration.assertionSelection == .exactlyOne)

        // Shibboleth's MessageFlow rule runs first among its security policy rules.
        try checkMessageAge(root)

        // 2. The Response's own signature, before anything is decrypted (it covers the
        //    EncryptedAssertion as sent).
        var responseSignature: VerifiedSignature?
        if XMLSignatureVerifier.signatureElement(of: root) != nil {
            do { responseSignature = try verifier.verify(root) } catch let e as SignatureError {
                throw ValidationFailure(e, line: root.line)
            }
        }

        // A non-success status is reported as such, whatever else is (not) in the Response.
        if let statusElement = root.firstChild("Status", SAMLNamespace.protocol_),
           let status = try? Status(element: statusElement),
           let failure = StatusPolicy.failure(for: status, line: statusElement.line) {
            throw failure
        }
        if let responseSignature { try checkExcluded(responseSignature, line: root.line) }

        // 3. The assertions, decrypted if need be: in document order, or — consuming them all,
        //    as Shibboleth's SAML2Consumer does — the plain ones first, then the encrypted ones
        //    (so the first valid plain assertion gives the subject).
        let plainAssertions = root.children("Assertion", SAMLNamespace.assertion)
        let encryptedAssertions = root.children("EncryptedAssertion", SAMLNamespace.assertion)
        let candidates = configuration.assertionSelection == .all ? plainAssertions + encryptedAssertions
            : root.children.filter {
                $0.is("Assertion", SAMLNamespace.assertion) || $0.is("EncryptedAssertion", SAMLNamespace.assertion)
            }
        if candidates.isEmpty {
            throw ValidationFailure(.assertionMissing, "the Response carries no Assertion", line: root.line)
        }
        if candidates.count > 1, configuration.assertionSelection == .exactlyOne {
            let plain = candidates.filter { $0.localName == "Assertion" }.count
            throw ValidationFailure(.assertionMultiple, "the Response carries \(candidates.count) assertions\(plain == candidates.count ? "" : " (\(candidates.count - plain) encrypted)"); exactly one is accepted", line: root.line)
        }
        // Parsed now, judged after the signatures: a value the signature covers that does not
        // parse is reported as the broken signature it is first.
        let response = Result { try Response(element: root) }
        var consumed: [Consumed] = []
        var firstFailure: ValidationFailure?
        for candidate in candidates {
            do {
                consumed.append(try consume(candidate, document: document, root: root, response: response,
                                            responseSignature: responseSignature, verifier: verifier))
            } catch let failure as ValidationFailure {
                // One assertion is all there is, or all Shibboleth keeps trying after.
                if configuration.assertionSelection == .exactlyOne { throw failure }
                if firstFailure == nil { firstFailure = failure }
            }
        }
        guard let first = consumed.first else {
            throw firstFailure ?? ValidationFailure(.assertionMissing, "no assertion of the Response could be used", line: root.line)
        }
        return ValidatedAssertion(
            responseID: try response.get().id, assertionID: first.assertion.id, issuer: first.assertion.issuer.value,
            nameID: first.nameID, sessionIndex: first.assertion.authnStatements.first?.sessionIndex,
            attributes: consumed.flatMap(\.assertion.attributes),
            signedBy: first.signedBy, wasEncrypted: first.wasEncrypted, signatureAlgorithm: first.algorithm,
            assertionCount: consumed.count, skippedAssertions: consumed.count < candidates.count ? (candidates.count - consumed.count) : 0)
    }

    struct Consumed {
        let assertion: Assertion
        let nameID: NameID
        let signedBy: ValidatedAssertion.SignedBy
        let wasEncrypted: Bool
        let algorithm: SignatureAlgorithm
    }

    /// Decrypts (when need be), verifies and judges one assertion of the Response.
    func consume(_ candidate: XMLElement, document: XMLDocument, root: XMLElement, response parsed: Result<Response, any Error>,
                 responseSignature: VerifiedSignature?, verifier: XMLSignatureVerifier) throws -> Consumed {
        var assertionElement = candidate
        var wasEncrypted = false
        if candidate.localName == "EncryptedAssertion" {
            guard !configuration.decryptionKeys.isEmpty else {
                throw ValidationFailure(.decryptionNoKey, "the Assertion is encrypted and no SP decryption key is configured", line: candidate.line)
            }
            do {
                assertionElement = try XMLDecryptor(keys: configuration.decryptionKeys).decrypt(candidate)
            } catch let e as EncryptionError {
                throw ValidationFailure(e.reason == .forbiddenAlgorithm ? .decryptionForbiddenAlgorithm : .decryptionFailed, e.message, line: candidate.line)
            }
            wasEncrypted = true
            // The decrypted content must not smuggle in further assertions or a Response.
            try StructureCheck.checkDecrypted(assertionElement)
            if !document.registerIDs().isEmpty {
                throw ValidationFailure(.signatureDuplicateID, "the decrypted Assertion reuses an ID already in the Response")
            }
        }

        // 4. The assertion's own signature.
        var assertionSignature: VerifiedSignature?
        if XMLSignatureVerifier.signatureElement(of: assertionElement) != nil {
            do { assertionSignature = try verifier.verify(assertionElement) } catch let e as SignatureError {
                throw ValidationFailure(e, line: assertionElement.line)
            }
            try checkExcluded(assertionSignature!, line: assertionElement.line)
        }
        let signedBy: ValidatedAssertion.SignedBy
        switch (responseSignature != nil, assertionSignature != nil) {
        case (true, true): signedBy = .both
        case (true, false): signedBy = .response
        case (false, true): signedBy = .assertion
        case (false, false):
            throw ValidationFailure(.signatureMissing, "neither the Response nor the Assertion is signed", line: root.line)
        }
        switch configuration.signatureRequirement {
        case .responseOrAssertion: break
        case .assertion where assertionSignature == nil:
            throw ValidationFailure(.signatureMissing, "the Assertion is not signed (the SP wants assertions signed; only the Response is)", line: assertionElement.line)
        case .response where responseSignature == nil:
            throw ValidationFailure(.signatureMissing, "the Response is not signed (the SP wants responses signed)", line: root.line)
        case .both where responseSignature == nil || assertionSignature == nil:
            throw ValidationFailure(.signatureMissing, "the SP wants both the Response and the Assertion signed; only the \(signedBy.rawValue) is", line: root.line)
        default: break
        }

        // 5. Parse into values and apply the policies.
        let response: Response
        let assertion: Assertion
        do {
            response = try parsed.get()
            assertion = try Assertion(element: assertionElement)
        } catch {
            throw ValidationFailure(.responseMalformed, "\(error)")
        }
        let context = SPValidationContext(configuration: configuration, response: response, assertion: assertion,
                                          now: configuration.clock.now(), responseWasSigned: responseSignature != nil,
                                          responseLine: root.line, assertionLine: assertionElement.line)
        for policy in policies {
            if let failure = policy.check(context) { throw failure }
        }
        guard let nameID = assertion.subject?.nameID else {
            throw ValidationFailure(.subjectMissing, "the Assertion has no NameID", line: assertionElement.line)
        }
        return Consumed(assertion: assertion, nameID: nameID, signedBy: signedBy, wasEncrypted: wasEncrypted,
                        algorithm: (assertionSignature ?? responseSignature)!.algorithm)
    }

    /// Refuses a verified signature whose algorithm or digest the SP excludes.
    func checkExcluded(_ signature: VerifiedSignature, line: Int) throws {
        for uri in [signature.algorithm.rawValue, signature.digest.rawValue] where configuration.excludedAlgorithms.contains(uri) {
            throw ValidationFailure(.signatureForbiddenAlgorithm, "the signature uses \(uri), which this SP excludes (<ExcludedAlgorithms>)", line: line)
        }
    }

    /// Shibboleth SP's MessageFlow rule on the Response's IssueInstant.
    func checkMessageAge(_ root: XMLElement) throws {
        guard let lifetime = configuration.messageLifetime,
              let text = root.attribute("IssueInstant"), let issued = try? SAMLDateTime.date(from: text) else { return }
        let now = configuration.clock.now()
        let skew = configuration.skew
        if issued > now.addingTimeInterval(skew) {
            throw ValidationFailure(.messageNotYetValid, "the Response's IssueInstant \(text) is in the future (now \(SAMLDateTime.string(from: now)), clock skew \(Int(skew)) s)", line: root.line)
        }
        if issued < now.addingTimeInterval(-skew - lifetime) {
            throw ValidationFailure(.messageExpired, "the Response was issued too long ago: IssueInstant \(text), now \(SAMLDateTime.string(from: now)); at most \(Int(lifetime)) s (MessageFlow expires) + \(Int(skew)) s clock skew", line: root.line)
        }
    }
}
