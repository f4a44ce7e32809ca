import Foundation

/// One HTTP request `attack-sp` sends to the SP.
public struct AttackHTTPRequest: Sendable {
    public var method: String
    public var url: String
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(method: String, url: String, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
    }
}

/// The SP's answer to one request (redirects are not followed by the transport).
public struct AttackHTTPResponse: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    public func headers(named name: String) -> [String] {
        headers.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }
}

/// Sends one request and returns the answer without following redirects, within a bounded
/// time. The CLI implements it with AsyncHTTPClient; tests may route to a handler in-process.
public protocol AttackHTTPTransport: Sendable {
    func send(_ request: AttackHTTPRequest) async throws -> AttackHTTPResponse
}
