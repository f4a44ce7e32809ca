import Foundation
import SAMLCore

extension TrafficLog {
    /// The log as HAR 1.2. Bodies that are not valid UTF-8 are base64 (`encoding: base64`).
    public func har(run: String? = nil, creatorVersion: String = "0.3.0") -> HAR {
        let selected = run.map { entries(run: $0) } ?? entries
        return HAR(log: .init(version: "1.2", creator: .init(name: "samlharness", version: creatorVersion),
                              entries: selected.map(Self.harEntry)))
    }

    /// The HAR document as pretty-printed JSON bytes.
    public func harJSON(run: String? = nil) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(har(run: run))
    }

    static func harEntry(_ entry: TrafficEntry) -> HAR.Entry {
        let request = entry.request
        let requestHeaders = request.headers.map { HAR.NameValue(name: $0.name, value: $0.value) }
        var postData: HAR.PostData?
        if !request.body.isEmpty || ["POST", "PUT", "PATCH"].contains(request.method) {
            let (text, encoding) = bodyText(request.body)
            let mime = request.header("Content-Type") ?? ""
            let params = mime.lowercased().hasPrefix("application/x-www-form-urlencoded")
                ? request.formFields.map { HAR.NameValue(name: $0.name, value: $0.value) } : nil
            postData = HAR.PostData(mimeType: mime, params: params, text: text, _encoding: encoding)
        }
        let harRequest = HAR.Request(
            method: request.method, url: request.url, httpVersion: "HTTP/1.1",
            cookies: request.cookies.map { HAR.NameValue(name: $0.name, value: $0.value) },
            headers: requestHeaders,
            queryString: request.query.map { HAR.NameValue(name: $0.name, value: $0.value) },
            postData: postData, headersSize: -1, bodySize: request.body.count)
        let harResponse: HAR.Response
        if let response = entry.response {
            let (text, encoding) = bodyText(response.body)
            harResponse = HAR.Response(
                status: response.status, statusText: HTTPStatusText.reason(response.status), httpVersion: "HTTP/1.1",
                cookies: response.headers(named: "Set-Cookie").compactMap(setCookieNameValue),
                headers: response.headers.map { HAR.NameValue(name: $0.name, value: $0.value) },
                content: .init(size: response.body.count, mimeType: response.header("Content-Type") ?? "",
                               text: text, encoding: encoding),
                redirectURL: response.header("Location") ?? "", headersSize: -1, bodySize: response.body.count)
        } else {
            // HAR 1.2 has no "no response"; status 0 is what browsers export for it.
            harResponse = HAR.Response(status: 0, statusText: "", httpVersion: "", cookies: [], headers: [],
                                       content: .init(size: 0, mimeType: "", text: nil, encoding: nil),
                                       redirectURL: "", headersSize: -1, bodySize: -1)
        }
        let receive = entry.receiveDuration * 1000
        let wait = entry.waitDuration * 1000
        let annotations = entry.annotations
        return HAR.Entry(
            startedDateTime: iso8601(entry.started), time: receive + wait, request: harRequest,
            response: harResponse, cache: [:], timings: .init(send: receive, wait: wait, receive: 0),
            serverIPAddress: "127.0.0.1", connection: String(request.connectionID),
            _mock: entry.mock, _run: entry.run, _sequence: entry.sequence,
            _annotations: annotations.isEmpty ? nil : annotations)
    }

    static func bodyText(_ bytes: [UInt8]) -> (String, String?) {
        if let text = String(validating: bytes, as: UTF8.self) { return (text, nil) }
        return (Data(bytes).base64EncodedString(), "base64")
    }

    static func setCookieNameValue(_ header: String) -> HAR.NameValue? {
        let first = header.split(separator: ";", maxSplits: 1).first.map(String.init) ?? header
        guard let eq = first.firstIndex(of: "=") else { return nil }
        return HAR.NameValue(name: String(first[..<eq]).trimmingCharacters(in: .whitespaces),
                             value: String(first[first.index(after: eq)...]))
    }

    static func iso8601(_ date: Date) -> String {
        date.formatted(.iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }
}
