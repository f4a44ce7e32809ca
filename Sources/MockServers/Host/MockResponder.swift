import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// Turns Hummingbird requests into ``MockRequest``s for one ``MockHandler``, records every
/// exchange in the ``TrafficLog`` and carries out the answer's ``MockResponse/Delivery``.
struct MockResponder: HTTPResponder {
    typealias Context = MockRequestContext

    let handler: any MockHandler
    let log: TrafficLog
    let origin: @Sendable () -> String
    let maxBodyBytes: Int
    /// How much of a refused (too large) body the traffic log keeps.
    static let refusedBodyBytesKept = 64 * 1024

    func respond(to request: Request, context: MockRequestContext) async throws -> Response {
        let (sequence, run) = log.reserve()
        let started = Date()
        let startInstant = ContinuousClock.now
        var body: [UInt8] = []
        var tooLarge = false
        do {
            for try await var buffer in request.body {
                if body.count + buffer.readableBytes > maxBodyBytes {
                    tooLarge = true
                    break
                }
                body += buffer.readBytes(length: buffer.readableBytes) ?? []
            }
        } catch {
            // The client went away mid-body: record what arrived.
            tooLarge = false
        }
        let received = ContinuousClock.now
        let arrivedBytes = body.count
        if tooLarge {
            // Refused unread: the log keeps the start of the body only, so a flood of
            // oversized posts cannot fill memory through the traffic log.
            body = Array(body.prefix(Self.refusedBodyBytesKept))
        }
        let mockRequest = MockRequest(
            method: request.method.rawValue,
            target: request.head.path ?? "/",
            // swift-http-types moves Host into the pseudo-header :authority; put it back first,
            // where HTTP/1.1 clients send it (RFC 9112 §3.2).
            headers: (request.head.authority.map { [("Host", $0)] } ?? []) + request.headers.map { ($0.name.rawName, $0.value) },
            body: body,
            connectionID: context.connectionID,
            remoteAddress: context.remoteAddress,
            origin: origin())
        var answer: MockResponse
        if tooLarge {
            answer = MockResponse.errorPage(status: 413, title: "Content Too Large",
                                            message: "The request body exceeds \(maxBodyBytes) bytes, the most this mock reads.")
                .annotated("refused", "body.too-large")
                .annotated("refused.body-bytes-read", String(arrivedBytes))
        } else {
            answer = await handler.handle(mockRequest)
        }
        switch answer.delivery {
        case .normal:
            break
        case .delayed(let duration):
            try? await Task.sleep(for: duration)
        case .noAnswer(let closeAfter):
            try? await Task.sleep(for: closeAfter)
            log.record(TrafficEntry(sequence: sequence, mock: handler.name, run: run, request: mockRequest, started: started,
                                    receiveDuration: seconds(received - startInstant),
                                    waitDuration: seconds(ContinuousClock.now - received), response: nil))
            try? await context.channel.close()
            throw CancellationError()
        case .truncated, .reset:
            // Half the body goes out under the full Content-Length; then the connection ends
            // (closed, or reset with SO_LINGER 0), as a crashing or overloaded server does.
            if answer.body.count < 2 {
                // A redirect without a body still gets one to cut (servers send a short page).
                answer.body = Array("<html><body>\(answer.status) \(HTTPStatusText.reason(answer.status))</body></html>\n".utf8)
            }
            let half = answer.body.count / 2
            let reset = answer.delivery == .reset
            answer.annotations["transport"] = "\(reset ? "reset" : "closed") after \(half) of \(answer.body.count) body bytes"
            log.record(TrafficEntry(sequence: sequence, mock: handler.name, run: run, request: mockRequest, started: started,
                                    receiveDuration: seconds(received - startInstant),
                                    waitDuration: seconds(ContinuousClock.now - received), response: answer))
            var response = Self.hummingbirdResponse(answer, closeConnection: true)
            let channel = context.channel
            let head = ByteBuffer(bytes: answer.body.prefix(half))
            response.body = ResponseBody(contentLength: answer.body.count) { writer in
                try await writer.write(head)
                if reset {
                    try? await (channel as? any SocketOptionProvider)?.setSoLinger(linger(l_onoff: 1, l_linger: 0)).get()
                }
                try? await channel.close()
                throw CancellationError()
            }
            return response
        }
        log.record(TrafficEntry(sequence: sequence, mock: handler.name, run: run, request: mockRequest, started: started,
                                receiveDuration: seconds(received - startInstant),
                                waitDuration: seconds(ContinuousClock.now - received), response: answer))
        // A mock may end the connection after its answer (`Connection: close`): NTLM's
        // CHALLENGE under `ntlm-new-connection`, as a load balancer that drops the handshake.
        let closing = tooLarge || answer.header("Connection")?.lowercased() == "close"
        return Self.hummingbirdResponse(answer, closeConnection: closing)
    }

    static func hummingbirdResponse(_ answer: MockResponse, closeConnection: Bool) -> Response {
        var fields = HTTPFields()
        for (name, value) in answer.headers {
            guard let fieldName = HTTPField.Name(name) else { continue }
            fields.append(HTTPField(name: fieldName, value: value))
        }
        if closeConnection { fields[.connection] = "close" }
        let status = HTTPResponse.Status(code: answer.status, reasonPhrase: HTTPStatusText.reason(answer.status))
        return Response(status: status, headers: fields, body: .init(byteBuffer: ByteBuffer(bytes: answer.body)))
    }

    private func seconds(_ duration: Duration) -> TimeInterval {
        let (s, attos) = duration.components
        return TimeInterval(s) + TimeInterval(attos) / 1e18
    }
}
