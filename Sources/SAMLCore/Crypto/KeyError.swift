/// Why a key or certificate could not be loaded or used.
public struct KeyError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Reason: String, Sendable {
        case unreadablePrivateKey = "key.unreadable-private-key"
        case unreadablePublicKey = "key.unreadable-public-key"
        case unreadableCertificate = "key.unreadable-certificate"
        case unsupportedKeyType = "key.unsupported-type"
        case generationFailed = "key.generation-failed"
        case signingFailed = "key.signing-failed"
    }

    public let reason: Reason
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}

/// The kind of an asymmetric key.
public enum KeyKind: String, Sendable {
    case rsa = "RSA"
    case ec = "EC"
}
