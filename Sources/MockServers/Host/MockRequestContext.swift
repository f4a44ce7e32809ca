import Hummingbird
import NIOCore

/// The per-request context the listeners use: Hummingbird's core storage plus the channel,
/// so the traffic log can name the connection and a fault can close it (and the live console
/// can tell a loopback client).
public struct MockRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    public let channel: any Channel

    public init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// The connection's number (``ConnectionNumbers``): unique for the process's life, so a new
    /// connection from a port the kernel hands out again is never taken for the old one.
    var connectionID: Int { ConnectionNumbers.number(of: channel) }
    var remoteAddress: String? { channel.remoteAddress?.ipAddress }
}
