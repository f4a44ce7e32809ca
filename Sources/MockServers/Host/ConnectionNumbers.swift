import NIOCore
import SAMLCore

/// A number per accepted TCP connection, unique for the life of the process, as a browser's HAR
/// numbers its connections. The client's port is not enough: once a connection closes, the
/// kernel may hand the same port to a new one, and state bound to a connection (an NTLM
/// handshake, an authenticated connection) must not pass to it.
enum ConnectionNumbers {
    private struct State {
        var next = 1
        var numbers: [ObjectIdentifier: Int] = [:]
    }

    private static let state = LockedValue(State())

    /// Gives the channel its number (the one it has, if any), forgotten when the channel closes.
    @discardableResult
    static func assign(_ channel: any Channel) -> Int { number(of: channel) }

    /// The channel's number, given on first sight in one step under the lock (two callers get
    /// the same one). A channel already closed is forgotten at once and gets a fresh number per
    /// call, which no request on it can see any more.
    static func number(of channel: any Channel) -> Int {
        let key = ObjectIdentifier(channel)
        let (number, new) = state.withLock { state -> (Int, Bool) in
            if let number = state.numbers[key] { return (number, false) }
            let number = state.next
            state.next += 1
            state.numbers[key] = number
            return (number, true)
        }
        if new {
            channel.closeFuture.whenComplete { _ in
                _ = state.withLock { $0.numbers.removeValue(forKey: key) }
            }
        }
        return number
    }
}
