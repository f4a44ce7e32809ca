extension CheckRegistry {
    /// The HTTP-auth, ECP, CAS, WS-Trust, AD FS and OPDS checks.
    static let protocolChecks: [any Check] = [
        HTTPAuthChallengeAnsweredCheck(),
        HTTPAuthProtectionSpaceReusedCheck(),
        HTTPAuthDigestResponseValidCheck(),
        HTTPAuthDigestStaleRetriedCheck(),
        ECPPAOSHeadersCheck(),
        ECPConsumerURLMatchedCheck(),
        ECPHeaderBlocksHandledCheck(),
        ECPSOAPToIdPCheck(),
        CASServiceTicketSingleUseCheck(),
        CASServiceURLExactCheck(),
        CASServiceEncodedCheck(),
        CASFailureCodeReportedCheck(),
        CASTicketValidatedPromptlyCheck(),
        WSTrustCredentialsXMLEscapedCheck(),
        WSTrustEnvelopeWellFormedCheck(),
        WSTrustAppliesToSetCheck(),
        WSTrustFaultReportedCheck(),
        ADFSFormLoginPostedCheck(),
        OPDSRedirectURIAppendedCheck(),
        OPDSBearerTokenSentCheck(),
        OPDSBookContentTypeCheckedCheck(),
    ]
}
