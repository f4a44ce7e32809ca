import Foundation
@testable import SAMLCore

/// The committed test keys in MockIdP/keys (repository root found from this file's path).
enum TestKeys {
    static let repositoryRoot: URL = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    static func url(_ name: String) -> URL {
        repositoryRoot.appendingPathComponent("MockIdP/keys/\(name)")
    }

    static func key(_ name: String) throws -> PrivateKey { try PrivateKey(contentsOf: url("\(name)-key.pem")) }
    static func cert(_ name: String) throws -> Certificate { try Certificate(contentsOf: url("\(name)-cert.pem")) }
}
