import Foundation

/// HTTP Archive 1.2 (http://www.softwareishard.com/blog/har-12-spec/), the format browsers
/// export and `import-har` reads. Fields the spec marks optional are left out when unknown;
/// harness-specific fields start with `_` as the spec allows for custom fields.
public struct HAR: Codable, Sendable {
    public var log: Log

    public struct Log: Codable, Sendable {
        public var version: String
        public var creator: Creator
        public var entries: [Entry]
    }

    public struct Creator: Codable, Sendable {
        public var name: String
        public var version: String
    }

    public struct NameValue: Codable, Sendable, Equatable {
        public var name: String
        public var value: String

        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    public struct Entry: Codable, Sendable {
        public var startedDateTime: String
        public var time: Double
        public var request: Request
        public var response: Response
        public var cache: [String: String]
        public var timings: Timings
        public var serverIPAddress: String?
        public var connection: String?
        public var _mock: String?
        public var _run: String?
        public var _sequence: Int?
        public var _annotations: [String: String]?
    }

    public struct Request: Codable, Sendable {
        public var method: String
        public var url: String
        public var httpVersion: String
        public var cookies: [NameValue]
        public var headers: [NameValue]
        public var queryString: [NameValue]
        public var postData: PostData?
        public var headersSize: Int
        public var bodySize: Int
    }

    public struct PostData: Codable, Sendable {
        public var mimeType: String
        public var params: [NameValue]?
        public var text: String
        /// Not in HAR 1.2 for postData; set to `base64` when `text` is base64 of binary bytes
        /// (the same convention as `content.encoding`).
        public var _encoding: String?
    }

    public struct Response: Codable, Sendable {
        public var status: Int
        public var statusText: String
        public var httpVersion: String
        public var cookies: [NameValue]
        public var headers: [NameValue]
        public var content: Content
        public var redirectURL: String
        public var headersSize: Int
        public var bodySize: Int
    }

    public struct Content: Codable, Sendable {
        public var size: Int
        public var mimeType: String
        public var text: String?
        public var encoding: String?
    }

    public struct Timings: Codable, Sendable {
        public var send: Double
        public var wait: Double
        public var receive: Double
    }
}
