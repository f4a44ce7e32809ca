extension CheckRegistry {
    /// The encoding, flow and security checks (Checks/Messages/).
    static let messageChecks: [any Check] = [
        // Encoding.
        SAMLResponseIntactCheck(), SAMLRequestIntactCheck(), FormPercentEncodedCheck(), QueryPercentEncodedCheck(),
        Base64UnalteredCheck(), UTF8CredentialsCheck(), RelayStateUnalteredCheck(),
        // Flow.
        RedirectsFollowedCheck(), PostFormSubmittedCheck(), RelayStatePreservedCheck(), CookiesKeptCheck(),
        CookiesScopedCheck(), IdPSessionReusedCheck(), BadPasswordBoundedCheck(), LockoutRespectedCheck(),
        ConsentAnsweredCheck(), SecondFactorCompletedCheck(), RedirectsBoundedCheck(), TimeoutCleanCheck(),
        ServerErrorReportedCheck(), ReauthOnCredentialsInvalidCheck(), NoDuplicatePostCheck(),
        // Security.
        NoPreemptiveCredentialsCheck(), NoPreemptiveProxyCredentialsCheck(), NoCredentialsToOtherHostCheck(), NoHTTPSDowngradeCheck(),
        NoCredentialsInURLCheck(), PasswordOnlyToIdPCheck(), SignatureValidatedCheck(),
        AssertionConditionsValidatedCheck(), RelayStateNotFollowedCheck(), ProxyCredentialsOnlyToProxyCheck(),
        TLSCertificateValidatedCheck(), TLSLegacyRefusedCheck(),
    ]
}
