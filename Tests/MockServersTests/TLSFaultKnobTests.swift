import Foundation
import NIOCore
import Testing
@testable import MockServers

/// The TLS knobs parse and print back, name what was wrong, and the pieces that read a
/// refused handshake (the alert in a plaintext record, BoringSSL's error text) read it right.
@Suite struct TLSFaultKnobTests {
    @Test func theTLSKnobsParseAndPrintBack() throws {
        #expect(try Knob(parsing: "tls") == .tls)
        #expect(try Knob(parsing: "tls=cas,adfs") == .httpsFor([.cas, .adfs]))
        #expect(try Knob(parsing: "tls=all") == .httpsFor(TLSMock.allCases))
        #expect(try Knob(parsing: "tls-expired=sp,idp") == .tlsFault(.expired, [.idp, .sp]))
        #expect(try Knob(parsing: "tls-legacy=cm") == .tlsFault(.legacyProtocol, [.cm]))
        for fault in TLSFault.allCases {
            let knob = Knob.tlsFault(fault, [.idp, .cas])
            #expect(try Knob(parsing: knob.text) == knob)
            #expect(knob.httpsMocks == [.idp, .cas])
        }
        #expect(Knob.tls.httpsMocks == [.idp, .sp])
        #expect(Knob.httpsDowngrade.needsTLS)
        #expect(!Knob.error500.needsTLS)
    }

    @Test func badTLSKnobsNameWhatWasWrong() {
        func message(_ text: String) -> String {
            do {
                _ = try Knob(parsing: text)
                return ""
            } catch { return "\(error)" }
        }
        #expect(message("tls-expired").contains("needs a value"))
        #expect(message("tls-expired=proxy").contains("`proxy` is not a mock that can speak https"))
        #expect(message("tls-bogus=idp").contains("the TLS faults are tls-unknown-ca"))
        #expect(message("tls=").contains("needs a mock"))
    }

    @Test func aPlaintextAlertIsReadAcrossRecordsAndChunks() {
        var scanner = TLSRecordScanner()
        // A ClientHello-sized handshake record, then an alert (fatal, unknown_ca) split in two.
        let hello: [UInt8] = [0x16, 0x03, 0x01, 0x00, 0x04, 1, 2, 3, 4]
        #expect(scanner.scan(ByteBuffer(bytes: hello).readableBytesView) == nil)
        #expect(scanner.scan(ByteBuffer(bytes: [0x15, 0x03, 0x03]).readableBytesView) == nil)
        #expect(scanner.scan(ByteBuffer(bytes: [0x00, 0x02, 0x02, 48]).readableBytesView) == "unknown_ca")

        // An encrypted record (application data) is skipped; plain HTTP is not TLS at all.
        var encrypted = TLSRecordScanner()
        #expect(encrypted.scan(ByteBuffer(bytes: [0x17, 0x03, 0x03, 0x00, 0x13] + [UInt8](repeating: 9, count: 19)).readableBytesView) == nil)
        var http = TLSRecordScanner()
        #expect(http.scan(ByteBuffer(string: "GET / HTTP/1.1\r\n\r\n").readableBytesView) == nil)
        #expect(http.scan(ByteBuffer(bytes: [0x15, 0x03, 0x03, 0x00, 0x02, 0x02, 45]).readableBytesView) == nil)
    }

    @Test func boringSSLErrorsNameTheAlertOrTheReason() {
        let alert = "handshakeFailed(sslError([Error: 268436501 error:10000415:SSL routines:OPENSSL_internal:SSLV3_ALERT_CERTIFICATE_EXPIRED at x.cc:1]))"
        #expect(TLSHandshakeRecord.alertName(in: alert) == "certificate_expired")
        #expect(TLSHandshakeRecord.alertName(in: "…OPENSSL_internal:TLSV1_ALERT_UNKNOWN_CA at…") == "unknown_ca")
        let reason = "handshakeFailed(sslError([Error: 1 error:100000f0:SSL routines:OPENSSL_internal:UNSUPPORTED_PROTOCOL at y.cc:2]))"
        #expect(TLSHandshakeRecord.alertName(in: reason) == nil)
        #expect(TLSHandshakeRecord.reason(in: reason) == "UNSUPPORTED_PROTOCOL")
        #expect(TLSHandshakeObserver.describe("UNSUPPORTED_PROTOCOL").hasPrefix("protocol_version"))
    }

    @Test func aHandshakeRecordIsAnExchangeWithItsOwnAnnotationsAndURL() throws {
        let record = TLSHandshakeRecord(outcome: .alert("certificate_expired"), protocolVersion: nil, fault: .expired,
                                        detail: "SSLV3_ALERT_CERTIFICATE_EXPIRED")
        let entry = TrafficEntry(sequence: 3, mock: "idp", run: nil,
                                 request: MockRequest(method: "TLS", target: "*", connectionID: 4242, origin: "https://127.0.0.1:8443"),
                                 started: Date(), receiveDuration: 0, waitDuration: 0.01, response: nil, handshake: record)
        #expect(!entry.isHTTP)
        #expect(entry.request.url == "https://127.0.0.1:8443/")
        #expect(entry.annotations["tls.outcome"] == "alert:certificate_expired")
        #expect(entry.annotations["tls.fault"] == "expired")
        #expect(entry.annotations["tls.summary"]?.contains("its certificate was expired") == true)
        let har = TrafficLog.harEntry(entry)
        #expect(har.request.method == "TLS")
        #expect(har.response.status == 0)
        #expect(har._annotations?["tls.outcome"] == "alert:certificate_expired")
    }
}
