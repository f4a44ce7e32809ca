import Hummingbird
import NIOCore

/// The per-request context the listeners use: Hummingbird's core storage plus the channel,
/// so the traffic log can name the connection and a fault can close it.
struct MockRequestContext: RequestContext {
    var coreContext: CoreRequestContextStorage
    let channel: any Channel

    init(source: ApplicationRequestContextSource) {
        self.coreContext = .init(source: source)
        self.channel = source.channel
    }

    /// The client's TCP port: unique among the live connections on loopback, so it names the
    /// connection in the traffic log.
    var connectionID: Int { channel.remoteAddress?.port ?? 0 }
    var remoteAddress: String? { channel.remoteAddress?.ipAddress }
}
