import Foundation
import SAMLCore

/// What the IdP is about to answer: who logged in, for which SP and request.
struct IssuedLogin: Sendable {
    var user: TestUser
    var sp: KnownSP
    /// The AuthnRequest's ID; nil for IdP-initiated SSO.
    var inResponseTo: String?
    /// The NameIDPolicy Format the request asked for.
    var requestedNameIDFormat: String?
    var authnInstant: Date
    var sessionIndex: String
    /// A non-success status to answer instead of an assertion (NoPassive, RequestDenied…).
    var status: Status?
}

/// An SP as the IdP knows it: from metadata, or only from its AuthnRequest.
struct KnownSP: Sendable {
    var entityID: String
    /// The ACS URL the Response goes to (the request's, checked against metadata when known).
    var acsURL: String
    var encryptionCertificate: Certificate?
    /// False when the IdP has no metadata for this SP and trusts the request's ACS URL.
    var fromMetadata: Bool
    var singleLogoutURL: String?
}
