#if Kerberos
import CGSSAPI
#endif
import Foundation

/// The acceptor side of Kerberos inside Negotiate (RFC 4559, RFC 4178, RFC 4121), through MIT
/// Kerberos's GSS-API with the keys of a real realm's keytab: the client's AP-REQ (in SPNEGO,
/// or a bare Kerberos token) is decrypted with the service key, its authenticator checked
/// (clock skew, replay cache, the service principal it names), and the client's principal
/// read from the ticket. Nothing is simulated: a ticket the KDC did not issue for one of the
/// keytab's services is refused with the library's own reason.
///
/// A realm is what `scripts/setup-kerberos.sh start DIR` makes: `DIR/http.keytab` holds the
/// keys of `HTTP/127.0.0.1` and `HTTP/localhost` in `EXAMPLE.ORG`. The mocks use it when
/// `SAMLH_KERBEROS` names that directory (``fromEnvironment()``).
public struct KerberosAcceptor: Sendable {
    /// The realm the mocks' domain stands for (NTLMAuthenticator.Names' `example.org`).
    public static let realm = "EXAMPLE.ORG"

    public let directory: String
    public let keytab: String
    /// MIT's replay cache (type file2) for the tickets this acceptor has seen.
    public let replayCache: String

    public init(directory: String) {
        self.directory = directory
        self.keytab = (directory as NSString).appendingPathComponent("http.keytab")
        self.replayCache = "file2:" + (directory as NSString).appendingPathComponent("http.rcache2")
    }

    /// The realm `SAMLH_KERBEROS` names, when its keytab is there.
    public static func fromEnvironment(_ environment: [String: String] = ProcessInfo.processInfo.environment) -> KerberosAcceptor? {
        guard let directory = environment["SAMLH_KERBEROS"], !directory.isEmpty else { return nil }
        let acceptor = KerberosAcceptor(directory: directory)
        return FileManager.default.isReadableFile(atPath: acceptor.keytab) ? acceptor : nil
    }

    public enum Outcome: Sendable, Equatable {
        /// The context is established: the client's principal, the service its ticket was for,
        /// and the token the server sends back (SPNEGO accept-completed with the AP-REP).
        case accepted(client: String, service: String, replyToken: [UInt8])
        /// The library refused the token: its reason.
        case refused(String)
        /// The mechanism wants another leg (a client that asked for something other than one
        /// AP-REQ); the mocks do not keep GSS contexts across requests.
        case continueNeeded
    }

    /// Whether this build reads Kerberos tickets: the package trait `Kerberos` (on by default
    /// on Linux; `swift build --traits Kerberos` on macOS with Homebrew's krb5, docs/macos.md).
    #if Kerberos
    public static let isAvailable = true
    #else
    public static let isAvailable = false
    #endif

    /// Why a build without the trait refuses every ticket.
    public static let unavailable = "this build has no Kerberos (built without the package trait Kerberos: `swift build --traits Kerberos`, docs/macos.md)"

    /// Accepts one initial token (the whole `Negotiate` token: SPNEGO or bare Kerberos).
    public func accept(_ token: [UInt8]) -> Outcome {
        #if Kerberos
        return acceptThroughGSSAPI(token)
        #else
        return .refused(Self.unavailable)
        #endif
    }
}

#if Kerberos
extension KerberosAcceptor {
    /// ``accept(_:)`` through GSS-API.
    func acceptThroughGSSAPI(_ token: [UInt8]) -> Outcome {
        var minor: OM_uint32 = 0
        var credential: gss_cred_id_t?
        // The keytab, and MIT's replay cache inside the realm's directory (not the library's
        // default under /var/tmp, which need not be writable here).
        let acquired: OM_uint32 = keytab.withCString { keytabPath in
            replayCache.withCString { cachePath in
                "keytab".withCString { keytabKey in
                    "rcache".withCString { cacheKey in
                        var elements = [gss_key_value_element_desc(key: keytabKey, value: keytabPath),
                                        gss_key_value_element_desc(key: cacheKey, value: cachePath)]
                        return elements.withUnsafeMutableBufferPointer { buffer in
                            var store = gss_key_value_set_desc(count: OM_uint32(buffer.count), elements: buffer.baseAddress)
                            return gss_acquire_cred_from(&minor, nil, samlh_gss_c_indefinite(), nil, samlh_gss_c_accept(),
                                                         &store, &credential, nil, nil)
                        }
                    }
                }
            }
        }
        if samlh_gss_error(acquired) != 0 {
            return .refused("the keytab \(keytab) gives no acceptor credentials: \(Self.describe(major: acquired, minor: minor))")
        }
        defer { var ignored: OM_uint32 = 0; gss_release_cred(&ignored, &credential) }

        var context: gss_ctx_id_t?
        var source: gss_name_t?
        var output = gss_buffer_desc(length: 0, value: nil)
        let major: OM_uint32 = token.withUnsafeBytes { bytes in
            var input = gss_buffer_desc(length: bytes.count, value: UnsafeMutableRawPointer(mutating: bytes.baseAddress))
            return gss_accept_sec_context(&minor, &context, credential, &input, nil, &source, nil, &output, nil, nil, nil)
        }
        defer {
            var ignored: OM_uint32 = 0
            gss_release_buffer(&ignored, &output)
            gss_release_name(&ignored, &source)
            if context != nil { gss_delete_sec_context(&ignored, &context, nil) }
        }
        if samlh_gss_error(major) != 0 {
            return .refused(Self.describe(major: major, minor: minor))
        }
        if major & samlh_gss_s_continue_needed() != 0 { return .continueNeeded }
        let reply = output.value.map { Array(UnsafeRawBufferPointer(start: $0, count: output.length)) } ?? []
        let client = source.map(Self.display) ?? "?"
        var service = "?"
        var target: gss_name_t?
        var inquired: OM_uint32 = 0
        if samlh_gss_error(gss_inquire_context(&inquired, context, nil, &target, nil, nil, nil, nil, nil)) == 0,
           let name = target {
            service = Self.display(name)
            var ignored: OM_uint32 = 0
            gss_release_name(&ignored, &target)
        }
        return .accepted(client: client, service: service, replyToken: reply)
    }

    private static func display(_ name: gss_name_t) -> String {
        var minor: OM_uint32 = 0
        var buffer = gss_buffer_desc(length: 0, value: nil)
        guard samlh_gss_error(gss_display_name(&minor, name, &buffer, nil)) == 0, let value = buffer.value else { return "?" }
        defer { gss_release_buffer(&minor, &buffer) }
        return String(decoding: UnsafeRawBufferPointer(start: value, count: buffer.length), as: UTF8.self)
    }

    /// The library's words for a status: the GSS routine error, then the mechanism's.
    static func describe(major: OM_uint32, minor: OM_uint32) -> String {
        var parts = messages(major, type: samlh_gss_c_gss_code())
        if minor != 0 { parts += messages(minor, type: samlh_gss_c_mech_code()) }
        return parts.filter { !$0.isEmpty }.joined(separator: ": ")
    }

    private static func messages(_ status: OM_uint32, type: Int32) -> [String] {
        var result: [String] = []
        var context: OM_uint32 = 0
        repeat {
            var minor: OM_uint32 = 0
            var buffer = gss_buffer_desc(length: 0, value: nil)
            let mech = type == samlh_gss_c_mech_code() ? samlh_gss_krb5_mech() : nil
            guard samlh_gss_error(gss_display_status(&minor, status, type, mech, &context, &buffer)) == 0 else { break }
            if let value = buffer.value {
                result.append(String(decoding: UnsafeRawBufferPointer(start: value, count: buffer.length), as: UTF8.self))
            }
            gss_release_buffer(&minor, &buffer)
        } while context != 0 && result.count < 8
        return result
    }
}
#endif
