import Foundation
import NIOCore
import NIOSSL
import NIOTLS

/// Where an https listener records the TLS connections that carried no request.
struct TLSHandshakeRecorder: Sendable {
    let log: TrafficLog
    /// The mock's name, as its exchanges are logged.
    let mock: String
    let origin: @Sendable () -> String
    /// The fault the listener serves (nil: the good certificate).
    let fault: TLSFault?
}

/// Watches one TLS connection of an https mock from both sides of its `NIOSSLServerHandler`
/// (``RawSide`` before it: did any TLS bytes arrive; ``DecryptedSide`` after it: the
/// handshake's end, its error, the first request byte) and, when the connection closes
/// without a request, records what the client did: its alert, a failed handshake, or a close.
/// Connections without a single byte (a port probe) are not recorded; on a listener with the
/// good certificate only a failed handshake is (a browser's idle preconnect is not news).
final class TLSHandshakeObserver {
    private let recorder: TLSHandshakeRecorder
    private var started = Date()
    private var sawBytes = false
    private var handshakeCompleted = false
    private var sawRequest = false
    private var protocolVersion: String?
    private var error: String?
    private var recorded = false
    /// The alert the client sent in a plaintext record (an OpenSSL client refusing the
    /// certificate in TLS 1.3 sends it before it has keys, and BoringSSL, expecting an
    /// encrypted record, reports only BAD_PACKET_LENGTH): read from the raw records.
    private var plaintextAlert: String?
    private var records = TLSRecordScanner()

    init(recorder: TLSHandshakeRecorder) {
        self.recorder = recorder
    }

    /// Adds both sides around the pipeline's `NIOSSLServerHandler`, if it has one.
    static func install(on channel: any Channel, recorder: TLSHandshakeRecorder) throws {
        let operations = channel.pipeline.syncOperations
        guard let ssl = try? operations.handler(type: NIOSSLServerHandler.self) else { return }
        let observer = TLSHandshakeObserver(recorder: recorder)
        try operations.addHandler(RawSide(observer: observer), position: .before(ssl))
        try operations.addHandler(DecryptedSide(observer: observer), position: .after(ssl))
    }

    fileprivate func closed(channel: any Channel) {
        guard !recorded, !sawRequest, sawBytes else { return }
        recorded = true
        let outcome: TLSHandshakeRecord.Outcome
        if let alert = plaintextAlert {
            outcome = .alert(alert)
        } else if let error, let alert = TLSHandshakeRecord.alertName(in: error) {
            outcome = .alert(alert)
        } else if let error {
            outcome = .failed(TLSHandshakeRecord.reason(in: error).map(Self.describe) ?? error)
        } else if recorder.fault == nil {
            return
        } else {
            outcome = handshakeCompleted ? .closedAfterHandshake : .closedDuringHandshake
        }
        let record = TLSHandshakeRecord(outcome: outcome, protocolVersion: protocolVersion, fault: recorder.fault,
                                        detail: error)
        let (sequence, run) = recorder.log.reserve()
        let request = MockRequest(method: "TLS", target: "*", connectionID: ConnectionNumbers.number(of: channel),
                                  remoteAddress: channel.remoteAddress?.ipAddress, origin: recorder.origin())
        recorder.log.record(TrafficEntry(sequence: sequence, mock: recorder.mock, run: run, request: request, started: started,
                                         receiveDuration: 0, waitDuration: Date().timeIntervalSince(started),
                                         response: nil, handshake: record))
    }

    /// BoringSSL's reason, in words where the name alone is obscure.
    static func describe(_ reason: String) -> String {
        switch reason {
        case "UNSUPPORTED_PROTOCOL": "protocol_version: the client offered no TLS version this server speaks"
        case "NO_SHARED_CIPHER": "no shared cipher suite"
        case "WRONG_VERSION_NUMBER": "wrong version number: not TLS (plain http to an https port?)"
        case "HTTP_REQUEST": "a plain-http request sent to the https port"
        default: reason
        }
    }

    static func versionName(_ version: TLSVersion?) -> String? {
        switch version {
        case .tlsv1: "TLS 1.0"
        case .tlsv11: "TLS 1.1"
        case .tlsv12: "TLS 1.2"
        case .tlsv13: "TLS 1.3"
        case .none: nil
        }
    }

    final class RawSide: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let observer: TLSHandshakeObserver

        init(observer: TLSHandshakeObserver) { self.observer = observer }

        func channelActive(context: ChannelHandlerContext) {
            observer.started = Date()
            context.fireChannelActive()
        }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            let buffer = unwrapInboundIn(data)
            if buffer.readableBytes > 0 { observer.sawBytes = true }
            if !observer.sawRequest, observer.plaintextAlert == nil {
                observer.plaintextAlert = observer.records.scan(buffer.readableBytesView)
            }
            context.fireChannelRead(data)
        }

        func channelInactive(context: ChannelHandlerContext) {
            // The SSL handler and the decrypted side see the close first (and its error, if
            // any): the record is made once, here.
            context.fireChannelInactive()
            observer.closed(channel: context.channel)
        }
    }

    final class DecryptedSide: ChannelInboundHandler, RemovableChannelHandler {
        typealias InboundIn = ByteBuffer
        typealias InboundOut = ByteBuffer
        let observer: TLSHandshakeObserver

        init(observer: TLSHandshakeObserver) { self.observer = observer }

        func channelRead(context: ChannelHandlerContext, data: NIOAny) {
            observer.sawRequest = true
            context.fireChannelRead(data)
        }

        func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
            if case TLSUserEvent.handshakeCompleted = event {
                observer.handshakeCompleted = true
                observer.protocolVersion = TLSHandshakeObserver.versionName(
                    try? context.pipeline.syncOperations.nioSSL_tlsVersion())
            }
            context.fireUserInboundEventTriggered(event)
        }

        func errorCaught(context: ChannelHandlerContext, error: any Error) {
            if !observer.sawRequest, observer.error == nil { observer.error = "\(error)" }
            context.fireErrorCaught(error)
        }
    }
}

/// Follows the TLS record layer of what a client sends (RFC 8446 §5.1: type, version,
/// length, payload) and returns the first plaintext alert's name. Gives up after 64 KiB or at
/// a header that is not TLS.
struct TLSRecordScanner {
    private var header: [UInt8] = []
    private var remaining = 0
    private var alert: [UInt8]?
    private var seen = 0
    private var done = false

    mutating func scan(_ bytes: ByteBufferView) -> String? {
        for byte in bytes {
            guard !done else { return nil }
            seen += 1
            if seen > 64 * 1024 { done = true; return nil }
            if remaining > 0 {
                remaining -= 1
                if alert != nil {
                    alert!.append(byte)
                    if alert!.count == 2 {
                        done = true
                        return Self.alertNames[alert![1]] ?? "alert \(alert![1])"
                    }
                }
                continue
            }
            header.append(byte)
            guard header.count == 5 else { continue }
            let type = header[0]
            let length = Int(header[3]) << 8 | Int(header[4])
            header.removeAll()
            guard (20...24).contains(type), length > 0, length <= 18_432 else { done = true; return nil }
            remaining = length
            alert = type == 21 && length == 2 ? [] : nil
        }
        return nil
    }

    /// RFC 8446 §6 and RFC 5246 §7.2 alert descriptions.
    static let alertNames: [UInt8: String] = [
        0: "close_notify", 10: "unexpected_message", 20: "bad_record_mac", 22: "record_overflow",
        40: "handshake_failure", 42: "bad_certificate", 43: "unsupported_certificate", 44: "certificate_revoked",
        45: "certificate_expired", 46: "certificate_unknown", 47: "illegal_parameter", 48: "unknown_ca",
        49: "access_denied", 50: "decode_error", 51: "decrypt_error", 70: "protocol_version",
        71: "insufficient_security", 80: "internal_error", 86: "inappropriate_fallback", 90: "user_canceled",
        109: "missing_extension", 110: "unsupported_extension", 112: "unrecognized_name",
        113: "bad_certificate_status_response", 115: "unknown_psk_identity", 116: "certificate_required",
        120: "no_application_protocol",
    ]
}
