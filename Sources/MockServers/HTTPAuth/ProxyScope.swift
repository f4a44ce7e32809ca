import Foundation
import SAMLCore

/// The origins a ``ForwardProxyMock`` forwards to. Alone it forwards to any loopback origin;
/// in a ``MockSuite`` the suite ``restrict(to:names:connectHost:)``s it to its own mock
/// listeners once they are bound, and every other target — the control API, the console,
/// another loopback service, another host — is refused.
public final class ProxyScope: Sendable {
    /// What to do with one target.
    public enum Judgement: Sendable, Equatable {
        /// Forward, connecting to this address.
        case forward(connectHost: String)
        /// 403, for this reason.
        case refuse(String)
    }

    struct Session: Sendable {
        /// Port → the mock listening there.
        var ports: [Int: String]
        /// Host names the mocks go by besides the loopback ones (bound and public host).
        var names: Set<String>
        var connectHost: String
    }

    private let session = LockedValue<Session?>(nil)

    public init() {}

    /// From now on forward only to `ports` (port → the mock's name), named by a loopback
    /// name or one of `names`, connecting to `connectHost`.
    public func restrict(to ports: [Int: String], names: Set<String>, connectHost: String) {
        session.withLock { $0 = Session(ports: ports, names: Set(names.map { $0.lowercased() }), connectHost: connectHost) }
    }

    func judge(_ upstream: Upstream) -> Judgement {
        guard let session = session.withLock({ $0 }) else {
            return upstream.isLoopback ? .forward(connectHost: upstream.connectHost)
                : .refuse("The harness proxy only forwards to loopback origins (127.0.0.1, ::1, localhost); \(upstream.host) is not one.")
        }
        let name = upstream.connectHost.lowercased()
        // The list of mocks is written only into a refusal, not for every request forwarded.
        func mocks() -> String {
            session.ports.sorted { $0.key < $1.key }.map { "\($0.value) :\($0.key)" }.joined(separator: ", ")
        }
        guard upstream.isLoopback || session.names.contains(name) else {
            return .refuse("The harness proxy forwards only to this session's mocks (\(mocks())); \(upstream.host) is not where they listen.")
        }
        guard session.ports[upstream.port] != nil else {
            return .refuse("The harness proxy forwards only to this session's mocks (\(mocks())); port \(upstream.port) is none of them "
                + "(not the control API, the console or any other service of this machine).")
        }
        return .forward(connectHost: session.connectHost)
    }
}
