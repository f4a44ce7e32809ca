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
        try StructureCheck.check(root, verifier: verifier)

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

        // 3. The one assertion, decrypted if need be.
        let plain = root.children("Assertion", SAMLNamespace.assertion)
        let encrypted = root.children("EncryptedAssertion", SAMLNamespace.assertion)
        var assertionElement: XMLElement
        var wasEncrypted = false
        switch (plain.count, encrypted.count) {
        case (0, 0):
            throw ValidationFailure(.assertionMissing, "the Response carries no Assertion", line: root.line)
        case (1, 0):
            assertionElement = plain[0]
        case (0, 1):
            guard !configuration.decryptionKeys.isEmpty else {
                throw ValidationFailure(.decryptionNoKey, "the Assertion is encrypted and no SP decryption key is configured", line: encrypted[0].line)
            }
            do {
                assertionElement = try XMLDecryptor(keys: configuration.decryptionKeys).decrypt(encrypted[0])
            } catch let e as EncryptionError {
                throw ValidationFailure(e.reason == .forbiddenAlgorithm ? .decryptionForbiddenAlgorithm : .decryptionFailed, e.message, line: encrypted[0].line)
            }
            wasEncrypted = true
            // The decrypted content must not smuggle in further assertions or a Response.
            try StructureCheck.checkDecrypted(assertionElement)
            if !document.registerIDs().isEmpty {
                throw ValidationFailure(.signatureDuplicateID, "the decrypted Assertion reuses an ID already in the Response")
            }
        default:
            throw ValidationFailure(.assertionMultiple, "the Response carries \(plain.count + encrypted.count) assertions; exactly one is accepted", line: root.line)
        }

        // 4. The assertion's own signature.
        var assertionSignature: VerifiedSignature?
        if XMLSignatureVerifier.signatureElement(of: assertionElement) != nil {
            do { assertionSignature = try verifier.verify(assertionElement) } catch let e as SignatureError {
                throw ValidationFailure(e, line: assertionElement.line)
            }
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
            response = try Response(element: root)
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
        return ValidatedAssertion(
            responseID: response.id, assertionID: assertion.id, issuer: assertion.issuer.value, nameID: nameID,
            sessionIndex: assertion.authnStatements.first?.sessionIndex, attributes: assertion.attributes,
            signedBy: signedBy, wasEncrypted: wasEncrypted,
            signatureAlgorithm: (assertionSignature ?? responseSignature)!.algorithm)
    }
}
