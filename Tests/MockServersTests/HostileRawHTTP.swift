import Foundation
#if canImport(Glibc)
import Glibc
#endif
import TestSupport

/// A deliberately dumb HTTP/1.1 client over a loopback socket for the hostile corpus: it
/// sends exactly the bytes it is given (a malformed request line, 10,000 headers, invalid
/// UTF-8, a 50 MB body), reads while it writes (so a server that answers 413 early is heard
/// before it closes), and keeps the answer's header block raw, so an injected header is seen
/// as the client would see it. Runs on a thread of its own, never on the cooperative pool.
struct RawHTTPAnswer: Sendable {
    /// 0 when no status line arrived.
    var status = 0
    /// The header lines as received (split on LF, CR trimmed: a bare LF injection shows up as
    /// a line of its own).
    var headerLines: [String] = []
    var body: [UInt8] = []
    /// What went wrong on the connection, if anything (reset, timeout, refused).
    var transportError: String?
    var seconds: Double = 0

    var headers: [(name: String, value: String)] {
        headerLines.compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]).trimmingCharacters(in: .whitespaces),
                    String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces))
        }
    }

    var bodyText: String { String(decoding: body, as: UTF8.self) }
}

enum RawHTTP {
    static func exchange(port: Int, request: [UInt8], timeout: Double = 5) async -> RawHTTPAnswer {
        await withCheckedContinuation { continuation in
            let thread = Thread { continuation.resume(returning: exchangeSync(port: port, request: request, timeout: timeout)) }
            thread.start()
        }
    }

    static func exchangeSync(port: Int, request: [UInt8], timeout: Double) -> RawHTTPAnswer {
        var answer = RawHTTPAnswer()
        let start = DispatchTime.now()
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { answer.transportError = "socket: errno \(errno)"; return answer }
        defer { close(fd) }
        exchange(fd, port: port, request: request, timeout: timeout, answer: &answer)
        answer.seconds = Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
        return answer
    }

    private static func exchange(_ fd: Int32, port: Int, request: [UInt8], timeout: Double, answer: inout RawHTTPAnswer) {
        guard LoopbackSocket.connect(fd, port: port) == 0 else { answer.transportError = "connect: errno \(errno)"; return }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) | O_NONBLOCK)
        var sent = 0
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 64 * 1024)
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            let remaining = deadline.timeIntervalSinceNow
            guard remaining > 0 else { answer.transportError = "no complete answer within \(timeout) s"; break }
            var events = Int16(POLLIN)
            if sent < request.count { events |= Int16(POLLOUT) }
            var descriptor = pollfd(fd: fd, events: events, revents: 0)
            let ready = poll(&descriptor, 1, Int32(min(remaining, 1) * 1000) + 1)
            if ready < 0, errno == EINTR { continue }
            if ready <= 0 { continue }
            if descriptor.revents & Int16(POLLIN) != 0 || descriptor.revents & Int16(POLLHUP | POLLERR) != 0 {
                let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
                if count > 0 {
                    received += buffer[0..<count]
                    if isComplete(received) { break }
                    continue
                }
                if count == 0 { break }
                if errno == EAGAIN || errno == EINTR { continue }
                answer.transportError = "read: \(String(cString: strerror(errno)))"
                break
            }
            if descriptor.revents & Int16(POLLOUT) != 0 {
                let count = request.withUnsafeBytes {
                    send(fd, $0.baseAddress! + sent, min(request.count - sent, 256 * 1024), Int32(MSG_NOSIGNAL))
                }
                if count > 0 { sent += count } else if errno != EAGAIN && errno != EINTR {
                    // The server stopped reading (e.g. after a 413): stop writing, keep reading.
                    sent = request.count
                }
            }
        }
        parse(received, into: &answer)
    }

    static func headEnd(_ bytes: [UInt8]) -> Int? {
        guard bytes.count >= 4 else { return nil }
        for i in 0...(bytes.count - 4) where bytes[i] == 13 && bytes[i + 1] == 10 && bytes[i + 2] == 13 && bytes[i + 3] == 10 {
            return i
        }
        return nil
    }

    static func isComplete(_ bytes: [UInt8]) -> Bool {
        guard let end = headEnd(bytes) else { return false }
        let head = headLines(bytes[..<end]).map { $0.lowercased() }
        for line in head where line.hasPrefix("content-length:") {
            let length = Int(line.dropFirst("content-length:".count).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
            return bytes.count - (end + 4) >= length
        }
        if head.contains("transfer-encoding: chunked") {
            return bytes.suffix(5) == [48, 13, 10, 13, 10]
        }
        return false
    }

    static func parse(_ bytes: [UInt8], into answer: inout RawHTTPAnswer) {
        guard let end = headEnd(bytes) else {
            if !bytes.isEmpty, answer.transportError == nil { answer.transportError = "the answer has no complete header block" }
            return
        }
        let lines = headLines(bytes[..<end])
        let statusParts = lines.first?.split(separator: " ") ?? []
        answer.status = statusParts.count > 1 ? Int(statusParts[1]) ?? 0 : 0
        answer.headerLines = Array(lines.dropFirst())
        var body = Array(bytes[(end + 4)...])
        if answer.headers.contains(where: { $0.name.lowercased() == "transfer-encoding" && $0.value.lowercased() == "chunked" }) {
            body = dechunked(body)
        }
        answer.body = body
    }

    /// The header block's lines, split on LF bytes with a trailing CR dropped (on bytes: in a
    /// Swift String, CR LF is one Character and would never split on "\n").
    static func headLines(_ head: ArraySlice<UInt8>) -> [String] {
        head.split(separator: 10, omittingEmptySubsequences: false).map { line in
            String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
        }
    }

    static func dechunked(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while index < bytes.count {
            guard let lineEnd = bytes[index...].firstIndex(of: 10) else { break }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
            guard let size = Int(sizeText.prefix { $0 != ";" }, radix: 16), size > 0 else { break }
            let start = lineEnd + 1
            out += bytes[start..<min(start + size, bytes.count)]
            index = start + size + 2
        }
        return out
    }
}
