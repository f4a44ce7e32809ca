extension Knob {
    /// One line: what the knob makes the IdP do.
    public var summary: String {
        switch self {
        case .responseUnsigned: "the Response carries no signature (the assertion keeps one only if the profile signs assertions)"
        case .assertionUnsigned: "the Assertion carries no signature; the Response stays signed (an SP that wants signed assertions refuses it)"
        case .wrongSigningKey: "signed with a key other than the metadata's, its own certificate in KeyInfo"
        case .expiredCertificate: "the signing certificate (in metadata and KeyInfo) is an expired one — valid 2000-01-01 to 2001-01-01, fixed so every run is the same; the key is unchanged"
        case .rsaSHA1: "signed with RSA-SHA1 and a SHA-1 digest instead of RSA-SHA256"
        case .wrongIssuer: "Issuer names another IdP (https://wrong-idp.example.org/idp/shibboleth)"
        case .wrongAudience: "the AudienceRestriction names another SP (https://other-sp.example.org/shibboleth)"
        case .wrongDestination: "Response Destination is another SP's ACS URL"
        case .wrongRecipient: "SubjectConfirmationData Recipient is another SP's ACS URL"
        case .inResponseToMissing: "InResponseTo left out of the Response and SubjectConfirmationData of a solicited login"
        case .inResponseToWrong: "InResponseTo names a request the SP never sent"
        case .expired: "NotOnOrAfter (Conditions and SubjectConfirmationData) already 10 minutes past"
        case .notYetValid: "NotBefore 10 minutes in the future"
        case .clockSkew(let s): "the IdP's clock is \(s >= 0 ? "ahead" : "behind") by \(abs(s)) s: every timestamp shifted"
        case .status(let kind, let message): "top-level Status \(kind.rawValue)\(message.map { " with StatusMessage “\($0)”" } ?? "") and no assertion"
        case .encryptWrongKey: "the assertion encrypted to a key that is not the SP's"
        case .relayStateDropped: "RelayState left out of the answer to the SP"
        case .relayStateAltered: "RelayState changed before it goes back to the SP"
        case .acsOther: "the Response posted to the SP's other ACS (…/SAML2/POST-SimpleSign), Destination and Recipient to match, not the URL the request asked for"
        case .base64Wrapped(let w): "SAMLResponse base64 line-wrapped at \(w) characters with CRLF, as some IdPs (and MIME) do"
        case .attributeMissing(let a): "the `\(a)` attribute left out of the assertion"
        case .nameIDFormat(let f): "NameID Format \(f), whatever the request's NameIDPolicy asked"
        case .secondAssertion: "a second Assertion for another subject (mallory) after the first, never signed itself (a Response signature, when the profile signs the Response, covers both)"
        case .nameIDComment: "an XML comment inside the NameID text (CVE-2017-11427/11428: vulnerable SPs read only the text before it)"
        case .oversized(let b): "the Response padded with an attribute to at least \(b) bytes"
        case .slow(let s): "the SSO endpoint answers after \(s) s"
        case .noAnswer(let s): "the SSO endpoint never answers; the connection closes after \(s) s"
        case .error500: "the SSO endpoint answers a 500 error page"
        case .redirectLoop: "the SSO endpoint redirects to itself forever (302, one more `loop=` each hop)"
        case .truncatedBody: "the SSO endpoint (and ECP, CAS login) sends its headers with the full Content-Length and half the body, then closes the connection"
        case .connectionReset: "the SSO endpoint (and ECP, CAS login) sends its headers and half the body, then resets the connection (TCP RST)"
        case .errorPage200: "the IdP's error pages (unsupported request, 500, stale request) answered with status 200, as Shibboleth IdP's error views are"
        case .spSessionEnds: "the SP's session serves its page once, then ends (timed out, or logged out by the application): the next visit goes back to the IdP, whose session a second login must reuse"
        case .tls: "the IdP and the SP served over https with the harness's local CA (scripts/setup-tls.sh; clients get SAMLH_CA_FILE)"
        case .httpsDowngrade: "the SP (over https) sends the client back after the login to its plain-http twin, as an SP behind a TLS-terminating proxy that thinks it runs on http does"
        case .httpsFor(let mocks): "\(Knob.listed(mocks)) served over https with the harness's local CA (clients get SAMLH_CA_FILE)"
        case .tlsFault(let fault, let mocks) where fault.isCertificateFault:
            "\(Knob.listed(mocks)) served over https presenting a certificate a client must refuse: \(fault.problem)"
        case .tlsFault(_, let mocks): "\(Knob.listed(mocks)) served over TLS 1.0 and 1.1 only (the good certificate): a client must refuse the connection (RFC 8996)"
        case .cas(let knob): knob.summary
        case .adfs(let knob): knob.summary
        case .cm(let knob): knob.summary
        case .ntlm(let knob): knob.summary
        }
    }

    public static func listed(_ mocks: [TLSMock]) -> String {
        let names = mocks.map { mock in
            switch mock {
            case .idp: "the IdP"
            case .sp: "the SP"
            case .auth: "the HTTP-auth resources"
            case .cas: "CAS"
            case .adfs: "AD FS"
            case .cm: "the circulation manager"
            }
        }
        return names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }

    /// The reason code a strict SP (the mock SP) answers the broken Response with; nil when
    /// the knob does not break the Response itself (transport faults, a comment that a
    /// correct SP reads through, or an encoding SPs accept).
    public var expectedSPReason: String? {
        switch self {
        case .responseUnsigned: "signature.missing"
        case .assertionUnsigned: "signature.missing"
        case .wrongSigningKey: "signature.untrusted-key"
        case .expiredCertificate: "signature.certificate-expired"
        case .rsaSHA1: "signature.forbidden-algorithm"
        case .wrongIssuer: "issuer.mismatch"
        case .wrongAudience: "audience.mismatch"
        case .wrongDestination: "destination.mismatch"
        case .wrongRecipient: "recipient.mismatch"
        case .inResponseToMissing: "in-response-to.missing"
        case .inResponseToWrong: "in-response-to.mismatch"
        case .expired: "subject-confirmation.expired"
        case .notYetValid: "conditions.not-yet-valid"
        case .clockSkew(let s): SPRules.strict.clockSkewReason(s)
        case .status: "status.not-success"
        case .encryptWrongKey: "encryption.decryption-failed"
        case .relayStateDropped: "relaystate.missing"
        case .relayStateAltered: "relaystate.unknown"
        case .acsOther: "destination.mismatch"
        case .base64Wrapped: "base64.line-wrapped"
        case .attributeMissing: "attribute.missing"
        case .nameIDFormat: "nameid.format-mismatch"
        case .secondAssertion: "assertion.multiple"
        case .nameIDComment: nil
        case .oversized: "response.oversized"
        case .slow, .noAnswer, .error500, .redirectLoop, .truncatedBody, .connectionReset, .errorPage200, .tls, .httpsDowngrade, .httpsFor, .tlsFault, .spSessionEnds: nil
        case .cas, .adfs, .cm, .ntlm: nil
        }
    }

    /// The reason code an SP with `rules` answers the broken Response with; nil when it
    /// accepts it (a stock Shibboleth SP accepts SHA-1, a lost RelayState, a second
    /// assertion…: docs/sp-personalities.md) or the knob does not break the Response.
    public func expectedSPReason(under rules: SPRules) -> String? {
        switch self {
        case .assertionUnsigned: rules.requireSignedAssertions ? "signature.missing" : nil
        case .expiredCertificate: rules.checkCertificateValidity ? "signature.certificate-expired" : nil
        case .rsaSHA1: rules.excludesSHA1 ? "signature.forbidden-algorithm" : nil
        case .inResponseToMissing: rules.checkCorrelation || rules.blockUnsolicited ? "in-response-to.missing" : nil
        case .inResponseToWrong: rules.checkCorrelation ? "in-response-to.mismatch" : nil
        case .clockSkew(let s): rules.clockSkewReason(s)
        case .relayStateDropped: rules.requireRelayState ? "relaystate.missing" : nil
        case .relayStateAltered: rules.requireRelayState ? "relaystate.unknown" : nil
        case .acsOther: rules.requireRequestedACS ? "destination.mismatch" : nil
        case .base64Wrapped: rules.strictBase64 ? "base64.line-wrapped" : nil
        case .attributeMissing(let name): rules.attributeChecker.contains(name) ? "attribute.missing" : nil
        case .nameIDFormat: rules.requireRequestedNameIDFormat ? "nameid.format-mismatch" : nil
        case .secondAssertion: rules.singleAssertion ? "assertion.multiple" : nil
        // The POST carries the Response in base64: a third more than the Response's bytes.
        case .oversized(let bytes): rules.limitRequestBody != 0 && bytes / 3 * 4 > rules.limitRequestBody ? "response.oversized" : nil
        default: expectedSPReason
        }
    }

    /// Knobs that act on the SSO endpoint's HTTP answer rather than on the Response.
    public var isTransportFault: Bool {
        switch self {
        case .slow, .noAnswer, .error500, .redirectLoop, .truncatedBody, .connectionReset: true
        default: false
        }
    }

    /// One example of every knob, for documentation and tests.
    public static let examples: [Knob] = [
        .responseUnsigned, .assertionUnsigned, .wrongSigningKey, .expiredCertificate, .rsaSHA1, .wrongIssuer,
        .wrongAudience, .wrongDestination, .wrongRecipient, .inResponseToMissing, .inResponseToWrong, .expired,
        .notYetValid, .clockSkew(-600), .clockSkew(600), .status(.responder, message: "Database unavailable"),
        .status(.requester, message: nil), .status(.authnFailed, message: "Bad credentials"), .encryptWrongKey,
        .relayStateDropped, .relayStateAltered, .acsOther, .base64Wrapped(64), .base64Wrapped(76),
        .attributeMissing("mail"), .nameIDFormat("urn:oasis:names:tc:SAML:1.1:nameid-format:emailAddress"),
        .secondAssertion, .nameIDComment, .oversized(2 * 1024 * 1024), .slow(2), .noAnswer(2), .error500, .redirectLoop,
        .truncatedBody, .connectionReset, .errorPage200, .tls, .httpsDowngrade, .httpsFor([.cas, .adfs]), .spSessionEnds,
    ] + TLSFault.allCases.map { .tlsFault($0, [.idp]) } + CASKnob.examples.map(Knob.cas) + ADFSKnob.examples.map(Knob.adfs) + CMKnob.examples.map(Knob.cm)
        + NTLMKnob.examples.map(Knob.ntlm)
}
