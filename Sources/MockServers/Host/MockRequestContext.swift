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

    /// The client's TCP port: unique among the live connections on loopback, so it names the
    /// connection in the traffic log.
    var connectionID: Int { channel.remoteAddress?.port ?? 0 }
    var remoteAddress: String? { channel.remoteAddress?.ipAddress }
}
