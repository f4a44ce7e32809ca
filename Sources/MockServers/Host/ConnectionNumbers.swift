import NIOCore
import Synchronization

/// A number per accepted TCP connection, unique for the life of the process, as a browser's HAR
/// numbers its connections. The client's port is not enough: once a connection closes, the
/// kernel may hand the same port to a new one, and state bound to a connection (an NTLM
/// handshake, an authenticated connection) must not pass to it.
enum ConnectionNumbers {
    private struct State {
        var next = 1
        var numbers: [ObjectIdentifier: Int] = [:]
    }

    private static let state = Mutex(State())

    /// Gives the channel its number, forgotten when the channel closes.
    @discardableResult
    static func assign(_ channel: any Channel) -> Int {
        let key = ObjectIdentifier(channel)
        let number = state.withLock { state -> Int in
            let number = state.next
            state.next += 1
            state.numbers[key] = number
            return number
        }
        channel.closeFuture.whenComplete { _ in
            _ = state.withLock { $0.numbers.removeValue(forKey: key) }
        }
        return number
    }

    /// The channel's number; a channel the mocks did not accept (none here) gets a fresh one.
    static func number(of channel: any Channel) -> Int {
        if let number = state.withLock({ $0.numbers[ObjectIdentifier(channel)] }) { return number }
        return assign(channel)
    }
}
