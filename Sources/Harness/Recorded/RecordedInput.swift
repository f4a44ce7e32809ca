import Foundation

/// One exchange read from a recorded file, whatever its format: the request and the answer as
/// far as the file has them. Values are as recorded (not yet templated or redacted).
struct RecordedExchange: Sendable {
    var sourceIndex: Int
    var started: Date?
    var method: String
    var url: String
    var requestHeaders: [(name: String, value: String)]
    /// The request body as text, when recorded.
    var requestBody: String?
    /// Form parameters, when the file lists them (HAR `postData.params`, SAML-tracer `post`).
    var requestParams: [(name: String, value: String)]?
    /// True when ``requestParams`` are already decoded (SAML-tracer); HAR lists them as sent.
    var paramsDecoded = false
    var requestMimeType: String?
    /// Chrome's `_resourceType` (`document`, `xhr`, `image`…), when present.
    var resourceType: String?
    var status: Int
    var responseHeaders: [(name: String, value: String)]
    /// The response body, or nil when the file does not have it.
    var responseBody: [UInt8]?
    var responseMimeType: String?
    /// HAR `redirectURL`.
    var redirectURL: String?
    /// SAML-tracer's decoded `saml` (the message in the request), when present.
    var decodedSAML: String?
    /// How long the server took to answer (HAR `timings.wait`), in milliseconds.
    var waitMilliseconds: Int?

    func requestHeader(_ name: String) -> String? {
        requestHeaders.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    func responseHeader(_ name: String) -> String? {
        responseHeaders.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }

    func responseHeaders(named name: String) -> [String] {
        responseHeaders.filter { $0.name.caseInsensitiveCompare(name) == .orderedSame }.map(\.value)
    }
}

/// A recorded file, read: its format, its creator, and the exchanges in order.
struct RecordedInput: Sendable {
    var format: RecordedChain.Source.Format
    var creator: String?
    /// SAML-tracer's export `timestamp`, HAR's first `startedDateTime`.
    var recorded: String?
    var exchanges: [RecordedExchange]
}

/// Why a recorded file cannot be imported. Names the file and what is wrong.
public struct RecordedImportError: Error, CustomStringConvertible, Sendable {
    public var file: String
    public var message: String

    public init(file: String, message: String) {
        self.file = file
        self.message = message
    }

    public var description: String { "\(file): \(message)" }
}

/// Reads HAR 1.2 (Chrome, Firefox, Safari, the harness's own `--har-out`) and SAML-tracer JSON
/// exports. Unknown fields are ignored; fields of an unexpected type are treated as absent, so
/// one odd entry never refuses the whole file.
enum RecordedInputReader {
    /// The largest file read (a HAR of a login is a few MB; browsers write hundreds of MB when
    /// a recording runs on).
    static let maxFileBytes = 100 * 1024 * 1024
    /// The most exchanges read.
    static let maxEntries = 5000

    static func read(file url: URL) throws -> RecordedInput {
        let name = url.lastPathComponent
        let attributes: [FileAttributeKey: Any]
        do {
            attributes = try FileManager.default.attributesOfItem(atPath: url.path)
        } catch {
            throw RecordedImportError(file: url.path, message: "cannot read the file: \(error.localizedDescription)")
        }
        if let size = attributes[.size] as? NSNumber, size.intValue > maxFileBytes {
            throw RecordedImportError(file: url.path, message: "the file is \(size.intValue / (1024 * 1024)) MB; "
                + "the limit is \(maxFileBytes / (1024 * 1024)) MB (record only the login, or cut the HAR down "
                + "to its entries)")
        }
        let data: Data
        do {
            data = try Data(contentsOf: url)
        } catch {
            throw RecordedImportError(file: url.path, message: "cannot read the file: \(error.localizedDescription)")
        }
        return try read(data: data, file: name)
    }

    static func read(data: Data, file: String) throws -> RecordedInput {
        guard data.count <= maxFileBytes else {
            throw RecordedImportError(file: file, message: "the input is \(data.count / (1024 * 1024)) MB; the "
                + "limit is \(maxFileBytes / (1024 * 1024)) MB")
        }
        guard !data.isEmpty else { throw RecordedImportError(file: file, message: "the file is empty") }
        let json: Any
        do {
            json = try JSONSerialization.jsonObject(with: data, options: [])
        } catch {
            let nsError = error as NSError
            let detail = (nsError.userInfo[NSDebugDescriptionErrorKey] as? String) ?? "not JSON"
            throw RecordedImportError(file: file, message: "not JSON (a HAR or a SAML-tracer export is a JSON "
                + "document): \(detail)")
        }
        guard let root = json as? [String: Any] else {
            throw RecordedImportError(file: file, message: "the JSON document is not an object; expected a HAR "
                + "(`{\"log\": {\"entries\": …}}`) or a SAML-tracer export (`{\"requests\": …}`)")
        }
        if let log = root["log"] as? [String: Any] {
            return try readHAR(log, file: file)
        }
        if let requests = root["requests"] as? [Any] {
            return try readSAMLTracer(requests, timestamp: root["timestamp"] as? String, file: file)
        }
        throw RecordedImportError(file: file, message: "neither a HAR 1.2 file (no `log.entries`) nor a "
            + "SAML-tracer export (no `requests`)")
    }

    // MARK: - HAR 1.2

    private static func readHAR(_ log: [String: Any], file: String) throws -> RecordedInput {
        guard let entries = log["entries"] as? [Any] else {
            throw RecordedImportError(file: file, message: "`log.entries` is missing or not an array: not a HAR "
                + "1.2 file")
        }
        guard !entries.isEmpty else {
            throw RecordedImportError(file: file, message: "the HAR has no entries (`log.entries` is empty): "
                + "nothing was recorded")
        }
        guard entries.count <= maxEntries else {
            throw RecordedImportError(file: file, message: "the HAR has \(entries.count) entries; the limit is "
                + "\(maxEntries)")
        }
        var creator: String?
        if let c = log["creator"] as? [String: Any], let name = c["name"] as? String {
            creator = [name, c["version"] as? String].compactMap { $0 }.joined(separator: " ")
        }
        var exchanges: [RecordedExchange] = []
        for (index, item) in entries.enumerated() {
            guard let entry = item as? [String: Any], let request = entry["request"] as? [String: Any],
                  let method = request["method"] as? String, let url = request["url"] as? String else {
                throw RecordedImportError(file: file, message: "log.entries[\(index)] has no request.method and "
                    + "request.url")
            }
            let response = entry["response"] as? [String: Any] ?? [:]
            var exchange = RecordedExchange(
                sourceIndex: index, started: (entry["startedDateTime"] as? String).flatMap(parseDate),
                method: method.uppercased(), url: url, requestHeaders: nameValues(request["headers"]),
                requestBody: nil, requestParams: nil, requestMimeType: nil,
                resourceType: entry["_resourceType"] as? String,
                status: intValue(response["status"]) ?? 0, responseHeaders: nameValues(response["headers"]),
                responseBody: nil, responseMimeType: nil,
                redirectURL: (response["redirectURL"] as? String).flatMap { $0.isEmpty ? nil : $0 }, decodedSAML: nil)
            if let timings = entry["timings"] as? [String: Any], let wait = timings["wait"] as? Double, wait >= 0,
               wait.isFinite, wait < 86_400_000 {
                exchange.waitMilliseconds = Int(wait.rounded())
            } else if let timings = entry["timings"] as? [String: Any], let wait = timings["wait"] as? Int, wait >= 0 {
                exchange.waitMilliseconds = min(wait, 86_400_000)
            }
            if let post = request["postData"] as? [String: Any] {
                exchange.requestMimeType = post["mimeType"] as? String
                if let text = post["text"] as? String {
                    if (post["_encoding"] as? String ?? post["encoding"] as? String) == "base64" {
                        exchange.requestBody = Data(base64Encoded: text).flatMap { String(data: $0, encoding: .utf8) }
                    } else {
                        exchange.requestBody = text
                    }
                }
                let params = nameValues(post["params"])
                if !params.isEmpty { exchange.requestParams = params }
            }
            if let content = response["content"] as? [String: Any] {
                exchange.responseMimeType = content["mimeType"] as? String
                if let text = content["text"] as? String {
                    if (content["encoding"] as? String)?.lowercased() == "base64" {
                        guard let bytes = Data(base64Encoded: text, options: .ignoreUnknownCharacters) else {
                            throw RecordedImportError(file: file, message: "log.entries[\(index)].response.content.text says base64 but is not")
                        }
                        exchange.responseBody = Array(bytes)
                    } else {
                        exchange.responseBody = Array(text.utf8)
                    }
                }
            }
            exchanges.append(exchange)
        }
        let first = (entries.first as? [String: Any])?["startedDateTime"] as? String
        return RecordedInput(format: .har, creator: creator, recorded: first, exchanges: exchanges)
    }

    // MARK: - SAML-tracer

    /// simplesamlphp/SAML-tracer `SAMLTraceIO.exportRequests`: `{"requests": [...], "timestamp"}`;
    /// each request has `method`, `url`, `requestId` (`id` before 1.0), `requestHeaders`
    /// (`[{name, value}]`, or `[[name, value]]` before 1.0), `get`/`post` (`[[name, value]]`,
    /// values decoded), `saml` (the decoded message), `responseStatus`, `responseStatusText`,
    /// `responseHeaders`. Response bodies are never exported.
    private static func readSAMLTracer(_ requests: [Any], timestamp: String?, file: String) throws -> RecordedInput {
        guard !requests.isEmpty else {
            throw RecordedImportError(file: file, message: "the SAML-tracer export has no requests")
        }
        guard requests.count <= maxEntries else {
            throw RecordedImportError(file: file, message: "the export has \(requests.count) requests; the limit "
                + "is \(maxEntries)")
        }
        var exchanges: [RecordedExchange] = []
        for (index, item) in requests.enumerated() {
            guard let request = item as? [String: Any], let method = request["method"] as? String,
                  let url = request["url"] as? String else {
                throw RecordedImportError(file: file, message: "requests[\(index)] has no method and url")
            }
            let headers = nameValues(request["requestHeaders"])
            var exchange = RecordedExchange(
                sourceIndex: index, started: nil, method: method.uppercased(), url: url, requestHeaders: headers,
                requestBody: nil, requestParams: nil,
                requestMimeType: headers.first { $0.name.lowercased() == "content-type" }?.value,
                resourceType: request["type"] as? String,
                status: intValue(request["responseStatus"]) ?? 0,
                responseHeaders: nameValues(request["responseHeaders"]), responseBody: nil, responseMimeType: nil,
                redirectURL: nil, decodedSAML: request["saml"] as? String)
            let post = nameValues(request["post"])
            if !post.isEmpty {
                exchange.requestParams = post
                exchange.paramsDecoded = true
                if exchange.requestMimeType == nil { exchange.requestMimeType = "application/x-www-form-urlencoded" }
            }
            exchange.responseMimeType = exchange.responseHeader("Content-Type")
            exchanges.append(exchange)
        }
        return RecordedInput(format: .samlTracer, creator: "SAML-tracer", recorded: timestamp, exchanges: exchanges)
    }

    // MARK: - Lenient field readers

    /// `[{name, value}]` or `[[name, value]]`; anything else is skipped.
    static func nameValues(_ value: Any?) -> [(name: String, value: String)] {
        guard let items = value as? [Any] else { return [] }
        return items.compactMap { item in
            if let object = item as? [String: Any], let name = object["name"] as? String {
                return (name, (object["value"] as? String) ?? "")
            }
            if let pair = item as? [Any], pair.count >= 2, let name = pair[0] as? String {
                return (name, (pair[1] as? String) ?? "")
            }
            return nil
        }
    }

    static func intValue(_ value: Any?) -> Int? {
        if let number = value as? NSNumber { return number.intValue }
        if let text = value as? String { return Int(text) }
        return nil
    }

    static func parseDate(_ text: String) -> Date? {
        let withFraction = ISO8601DateFormatter()
        withFraction.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = withFraction.date(from: text) { return date }
        let plain = ISO8601DateFormatter()
        if let date = plain.date(from: text) { return date }
        // The harness's own HAR writes `+0000` without a colon.
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd'T'HH:mm:ss.SSSZ"
        return formatter.date(from: text)
    }
}
