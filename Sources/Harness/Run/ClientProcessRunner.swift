import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

// posix_spawn's attributes and file actions are structs in glibc and opaque pointers in Darwin
// (`typedef void *posix_spawnattr_t`, imported as an optional pointer that `_init` allocates).
#if canImport(Darwin)
public typealias SpawnAttributes = posix_spawnattr_t?
public typealias SpawnFileActions = posix_spawn_file_actions_t?
#else
public typealias SpawnAttributes = posix_spawnattr_t
public typealias SpawnFileActions = posix_spawn_file_actions_t
#endif

/// Runs a client under test as a child in a process group of its own, so a timeout stops it
/// and everything it forked: SIGTERM to the group, then SIGKILL after a grace period.
/// Output is kept bounded (the last `outputLimit` bytes of each stream).
public struct ClientProcessRunner: Sendable {
    public struct Outcome: Sendable, Equatable {
        /// The exit status (or 128 + signal when killed by one); nil when it could not start.
        public var status: Int32?
        public var timedOut: Bool
        public var stdout: String
        public var stderr: String
        /// Why it could not start, when it could not.
        public var launchError: String?
        public var seconds: Double
        /// Why it was stopped before its timeout (``run(command:directory:environment:timeout:stop:)``).
        public var stopped: String?
        /// The signal that ended it, when one did (`status` is then 128 + it).
        public var signal: Int32?
        /// When the runner saw it end (its exit reaped), before its output was drained and
        /// before the awaiting task was scheduled again: the end a timing check measures.
        public var ended: Date?
    }

    public var outputLimit = 64 * 1024
    public var grace: TimeInterval = 2

    public init() {}

    /// Runs `/bin/sh -c command` in `directory` with exactly `environment`, for at most
    /// `timeout` seconds.
    /// `stop`, polled while it runs, ends it early with a reason (e.g. it floods the mocks).
    /// `stdinFile`: a file the command reads as its standard input (default /dev/null).
    public func run(command: String, directory: String?, environment: [String: String],
                    timeout: TimeInterval, stdinFile: String? = nil,
                    stop: @escaping @Sendable () -> String? = { nil }) async -> Outcome {
        await withCheckedContinuation { continuation in
            let thread = Thread {
                continuation.resume(returning: runBlocking(command: command, directory: directory, environment: environment,
                                                           timeout: timeout, stdinFile: stdinFile, stop: stop))
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
    }

    /// ``run(command:directory:environment:timeout:stdinFile:stop:)`` on the calling thread.
    public func runBlocking(command: String, directory: String?, environment: [String: String], timeout: TimeInterval,
                            stdinFile: String? = nil, stop: @Sendable () -> String? = { nil }) -> Outcome {
        let started = Date()
        var outPipe: [Int32] = [0, 0]
        var errPipe: [Int32] = [0, 0]
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            return Outcome(status: nil, timedOut: false, stdout: "", stderr: "", launchError: "pipe: \(String(cString: strerror(errno)))", seconds: 0, stopped: nil)
        }
        setCloseOnExec(outPipe + errPipe)
        var actions = Self.spawnFileActions()
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, stdinFile ?? "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        // Nothing else of the runner (other clients' pipes, the mocks' sockets) leaks into the
        // client: glibc closes from 3 up; Darwin closes every descriptor the actions do not
        // name (POSIX_SPAWN_CLOEXEC_DEFAULT, ``spawnAttributes()``).
        #if !canImport(Darwin)
        if let spawnCloseFrom { _ = spawnCloseFrom(&actions, 3) } else { setCloseOnExec(outPipe + errPipe) }
        #endif
        var attributes = Self.spawnAttributes()
        defer { posix_spawnattr_destroy(&attributes) }

        // The shell changes directory itself so a missing directory is a clear error.
        let script = directory.map { "cd \(Self.shellQuoted($0)) || exit 127; \(command)" } ?? command
        let argv = ["/bin/sh", "-c", script]
        let envp = environment.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var pid: pid_t = 0
        let spawned = Self.withCStrings(argv) { cArgv in
            Self.withCStrings(envp) { cEnvp in
                posix_spawn(&pid, "/bin/sh", &actions, &attributes, cArgv, cEnvp)
            }
        }
        close(outPipe[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(outPipe[0])
            close(errPipe[0])
            return Outcome(status: nil, timedOut: false, stdout: "", stderr: "",
                           launchError: "cannot start /bin/sh: \(String(cString: strerror(spawned)))", seconds: 0, stopped: nil)
        }
        let limit = outputLimit
        let stdoutReader = BoundedReader(fd: outPipe[0], limit: limit)
        let stderrReader = BoundedReader(fd: errPipe[0], limit: limit)
        stdoutReader.start()
        stderrReader.start()

        var status: Int32 = 0
        var timedOut = false
        var stopped: String?
        let deadline = started.addingTimeInterval(timeout)
        var killedAt: Date?
        var polls = 0
        while true {
            let result = waitpid(pid, &status, WNOHANG)
            if result == pid { break }
            if result < 0 && errno != EINTR { break }
            let now = Date()
            if killedAt == nil, let reason = stop() {
                stopped = reason
                kill(-pid, SIGTERM)
                killedAt = now
            } else if killedAt == nil, now >= deadline {
                timedOut = true
                kill(-pid, SIGTERM)
                killedAt = now
            } else if let killedAt, now.timeIntervalSince(killedAt) >= grace {
                kill(-pid, SIGKILL)
            }
            // Most clients end within a few dozen milliseconds: poll every millisecond at
            // first, then every 10 ms (a catalog run waits on ~200 clients in a row).
            polls += 1
            usleep(polls < 100 ? 1_000 : 10_000)
        }
        let reaped = Date()
        // The leader is gone; stop whatever it left behind in its group.
        kill(-pid, SIGKILL)
        let out = stdoutReader.finish(deadline: Date().addingTimeInterval(grace))
        let err = stderrReader.finish(deadline: Date().addingTimeInterval(grace))
        let signal: Int32? = Self.exited(status) ? nil : Self.termSignal(status)
        let exit: Int32 = signal.map { 128 + $0 } ?? Self.exitStatus(status)
        return Outcome(status: exit, timedOut: timedOut, stdout: out, stderr: err, launchError: nil,
                       seconds: Date().timeIntervalSince(started), stopped: stopped, signal: signal, ended: reaped)
    }

    /// Empty file actions, initialised; the caller adds to them and destroys them.
    public static func spawnFileActions() -> SpawnFileActions {
        #if canImport(Darwin)
        var actions: SpawnFileActions = nil
        #else
        var actions = SpawnFileActions()
        #endif
        posix_spawn_file_actions_init(&actions)
        return actions
    }

    /// The attributes every child gets: a process group of its own (so the whole group can be
    /// stopped), no blocked signals and SIGINT/SIGTERM/SIGPIPE/SIGHUP at their defaults,
    /// whatever the parent does with them; on Darwin, no descriptor but those the file actions
    /// name. The caller destroys them.
    public static func spawnAttributes() -> SpawnAttributes {
        #if canImport(Darwin)
        var attributes: SpawnAttributes = nil
        let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_CLOEXEC_DEFAULT
        #else
        var attributes = SpawnAttributes()
        let flags = POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
        #endif
        posix_spawnattr_init(&attributes)
        posix_spawnattr_setflags(&attributes, Int16(flags))
        posix_spawnattr_setpgroup(&attributes, 0)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGINT, SIGTERM, SIGPIPE, SIGHUP] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        return attributes
    }

    static func exited(_ status: Int32) -> Bool { status & 0x7F == 0 }
    static func exitStatus(_ status: Int32) -> Int32 { (status >> 8) & 0xFF }
    static func termSignal(_ status: Int32) -> Int32 { status & 0x7F }

    /// `text` as one word for `/bin/sh`.
    public static func shellQuoted(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }

    static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }
}

/// Drains a pipe on its own thread, keeping the last `limit` bytes.
final class BoundedReader: @unchecked Sendable {
    private let fd: Int32
    private let limit: Int
    private var buffer: [UInt8] = []
    private var dropped = 0
    private let done = DispatchSemaphore(value: 0)
    private let lock = NSLock()

    init(fd: Int32, limit: Int) {
        self.fd = fd
        self.limit = limit
    }

    func start() {
        let thread = Thread { [self] in
            var chunk = [UInt8](repeating: 0, count: 16 * 1024)
            while true {
                let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count < 0 && errno == EINTR { continue }
                if count <= 0 { break }
                lock.withLock {
                    buffer.append(contentsOf: chunk[0..<count])
                    if buffer.count > limit {
                        dropped += buffer.count - limit
                        buffer.removeFirst(buffer.count - limit)
                    }
                }
            }
            close(fd)
            done.signal()
        }
        thread.start()
    }

    /// The text read (waiting at most until `deadline` for the writers to close the pipe —
    /// a grandchild that escaped the group could hold it open).
    func finish(deadline: Date) -> String {
        _ = done.wait(timeout: .now() + max(0, deadline.timeIntervalSinceNow))
        return lock.withLock {
            let text = String(decoding: buffer, as: UTF8.self)
            return dropped > 0 ? "[… \(dropped) bytes dropped]\n" + text : text
        }
    }
}

#if !canImport(Darwin)
/// glibc's `posix_spawn_file_actions_addclosefrom_np` (2.34+), looked up at run time: Swift's
/// Glibc module does not export it.
private let spawnCloseFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32)? = {
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
    return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>?, Int32) -> Int32).self)
}()
#endif

/// Marks descriptors close-on-exec (for when the closefrom action is missing).
private func setCloseOnExec(_ fds: [Int32]) {
    for fd in fds { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
}
