internal import CXMLSec

/// Block encryption of the data (xmlenc-core §5.2, xmlenc-core1 §5.2.4 for GCM).
public enum DataEncryptionAlgorithm: String, Sendable, CaseIterable {
    case aes128CBC = "http://www.w3.org/2001/04/xmlenc#aes128-cbc"
    case aes256CBC = "http://www.w3.org/2001/04/xmlenc#aes256-cbc"
    case aes128GCM = "http://www.w3.org/2009/xmlenc11#aes128-gcm"
    case aes256GCM = "http://www.w3.org/2009/xmlenc11#aes256-gcm"

    public var shortName: String { String(rawValue.split(separator: "#").last ?? "") }

    public init?(nameOrURI: String) {
        if let a = Self(rawValue: nameOrURI) { self = a; return }
        guard let a = Self.allCases.first(where: { $0.shortName == nameOrURI.lowercased() }) else { return nil }
        self = a
    }

    var keyBits: UInt32 {
        switch self {
        case .aes128CBC, .aes128GCM: 128
        case .aes256CBC, .aes256GCM: 256
        }
    }

    var transformID: xmlSecTransformId {
        switch self {
        case .aes128CBC: xmlSecOpenSSLTransformAes128CbcGetKlass()
        case .aes256CBC: xmlSecOpenSSLTransformAes256CbcGetKlass()
        case .aes128GCM: xmlSecOpenSSLTransformAes128GcmGetKlass()
        case .aes256GCM: xmlSecOpenSSLTransformAes256GcmGetKlass()
        }
    }
}

/// Key transport: how the AES session key is encrypted to the recipient (xmlenc-core §5.4).
public enum KeyTransportAlgorithm: String, Sendable, CaseIterable {
    /// RSA-OAEP with MGF1/SHA-1 — the one SAML stacks interoperate on.
    case rsaOAEP = "http://www.w3.org/2001/04/xmlenc#rsa-oaep-mgf1p"
    /// RSA PKCS#1 v1.5 — vulnerable to Bleichenbacher-style oracles; a misconfiguration knob.
    case rsa1_5 = "http://www.w3.org/2001/04/xmlenc#rsa-1_5"

    public var shortName: String { String(rawValue.split(separator: "#").last ?? "") }

    var transformID: xmlSecTransformId {
        switch self {
        case .rsaOAEP: xmlSecOpenSSLTransformRsaOaepGetKlass()
        case .rsa1_5: xmlSecOpenSSLTransformRsaPkcs1GetKlass()
        }
    }
}

/// Why encryption or decryption failed.
public struct EncryptionError: Error, CustomStringConvertible, Sendable, Equatable {
    public enum Reason: String, Sendable {
        case encryptionFailed = "encryption.failed"
        case decryptionFailed = "encryption.decryption-failed"
        case malformed = "encryption.malformed"
        case forbiddenAlgorithm = "encryption.forbidden-algorithm"
    }

    public let reason: Reason
    public let message: String

    public init(_ reason: Reason, _ message: String) {
        self.reason = reason
        self.message = message
    }

    public var description: String { "\(reason.rawValue): \(message)" }
}
