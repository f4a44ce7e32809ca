import AsyncHTTPClient
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import NIOSSL
import NIOTLS
import ReferenceClient

/// The unverified HTTPS transport of the reference client's buggy trust variants
/// (`trust-all-certificates`, `trust-self-signed`): AsyncHTTPClient with certificate
/// verification off — the Linux equivalent of seed 000's
/// `[challenge.sender useCredential:[NSURLCredential credentialForTrust:…]]`. TLS 1.2 at
/// least, as the field's clients keep it: the variants turn off the certificate check only.
///
/// This is what the harness's `security.tls-certificate-validated` exists to catch. Never
/// copy it into an app.
public final class NIOUnverifiedTLSTransport: UnverifiedTLSTransport {
    private let client: HTTPClient

    public init() {
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.certificateVerification = .none
        tls.minimumTLSVersion = .tlsv12
        var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow,
                                                     decompression: .disabled)
        configuration.httpVersion = .http1Only
        client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
    }

    /// Closes the client's connections; call once, before the process ends.
    public func shutdown() async {
        try? await client.shutdown()
    }

    public func send(method: String, url: URL, headers: [(name: String, value: String)], body: Data?,
                     timeout: TimeInterval) async throws -> (status: Int, headers: [String: String], body: Data) {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = .init(rawValue: method)
        for header in headers { request.headers.add(name: header.name, value: header.value) }
        if let body { request.body = .bytes(ByteBuffer(bytes: body)) }
        let response = try await client.execute(request, timeout: .milliseconds(Int64(max(timeout, 0.05) * 1000)))
        let answer = try await NIOHTTPTransport.answer(of: response)
        return (answer.status, answer.headers, answer.body)
    }

    public func presentedChain(of url: URL, timeout: TimeInterval) async throws -> [(subject: [UInt8], issuer: [UInt8])] {
        guard let host = url.host else { throw URLError(.badURL) }
        let port = url.port ?? 443
        var tls = TLSConfiguration.makeClientConfiguration()
        tls.minimumTLSVersion = .tlsv12
        let context = try NIOSSLContext(configuration: tls)
        let captured = NIOLockedValueBox<[NIOSSLCertificate]>([])
        let isAddress = (try? SocketAddress(ipAddress: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: 0)) != nil
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connectTimeout(.milliseconds(Int64(max(timeout, 0.05) * 1000)))
            .channelInitializer { channel in
                channel.eventLoop.makeCompletedFuture {
                    let handler = try NIOSSLClientHandler(context: context, serverHostname: isAddress ? nil : host,
                                                          customVerificationCallback: { certificates, promise in
                                                              captured.withLockedValue { $0 = certificates }
                                                              promise.succeed(.certificateVerified)
                                                          })
                    try channel.pipeline.syncOperations.addHandler(handler)
                    try channel.pipeline.syncOperations.addHandler(HandshakeWaiter(promise: channel.eventLoop.makePromise()))
                }
            }
            .connect(host: host, port: port).get()
        let waiter = try await channel.pipeline.handler(type: HandshakeWaiter.self).get()
        defer { channel.close(promise: nil) }
        try await waiter.promise.futureResult.get()
        return try captured.withLockedValue { certificates in
            try certificates.map { certificate in
                guard let names = DERNames(der: try certificate.toDERBytes()) else { throw URLError(.cannotParseResponse) }
                return (names.subject, names.issuer)
            }
        }
    }
}

/// Completes when the TLS handshake does (or fails when the connection ends first).
private final class HandshakeWaiter: ChannelInboundHandler, @unchecked Sendable {
    typealias InboundIn = ByteBuffer
    let promise: EventLoopPromise<Void>

    init(promise: EventLoopPromise<Void>) { self.promise = promise }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if case TLSUserEvent.handshakeCompleted = event { promise.succeed(()) }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        promise.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        promise.fail(ChannelError.inputClosed)
        context.fireChannelInactive()
    }
}

/// The issuer and subject Names of an X.509 certificate, as DER (RFC 5280 §4.1:
/// Certificate → TBSCertificate → [version] serial signature issuer validity subject).
struct DERNames {
    let issuer: [UInt8]
    let subject: [UInt8]

    init?(der: [UInt8]) {
        var outer = DERReader(der[...])
        guard let certificate = outer.next(), certificate.tag == 0x30 else { return nil }
        var inner = DERReader(certificate.contents)
        guard let tbs = inner.next(), tbs.tag == 0x30 else { return nil }
        var fields = DERReader(tbs.contents)
        if fields.peekTag == 0xA0 { _ = fields.next() }
        guard fields.next() != nil, fields.next() != nil, let issuer = fields.next(), fields.next() != nil,
              let subject = fields.next() else { return nil }
        self.issuer = Array(issuer.contents)
        self.subject = Array(subject.contents)
    }
}

struct DERReader {
    var bytes: ArraySlice<UInt8>

    init(_ bytes: ArraySlice<UInt8>) { self.bytes = bytes }

    var peekTag: UInt8? { bytes.first }

    /// The next element's tag and contents, or nil at the end or on a malformed length.
    mutating func next() -> (tag: UInt8, contents: ArraySlice<UInt8>)? {
        guard bytes.count >= 2 else { return nil }
        var index = bytes.startIndex
        let tag = bytes[index]
        index += 1
        var length = Int(bytes[index])
        index += 1
        if length & 0x80 != 0 {
            let count = length & 0x7F
            guard (1...3).contains(count), bytes.endIndex - index >= count else { return nil }
            length = 0
            for _ in 0..<count {
                length = length << 8 | Int(bytes[index])
                index += 1
            }
        }
        guard bytes.endIndex - index >= length else { return nil }
        let contents = bytes[index..<(index + length)]
        bytes = bytes[(index + length)...]
        return (tag, contents)
    }
}
