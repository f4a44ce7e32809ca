import Foundation
import Harness
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process the benchmarks time: started with `posix_spawn` (Foundation's `Process`
/// adds its own threads and start-up cost to what is measured) in a process group of its
/// own, its stdout on a pipe read with `poll`, reaped with `wait4` for its resource usage.
final class BenchProcess {
    struct LaunchError: Error, CustomStringConvertible {
        let description: String
    }

    /// How the child ended: exit status (128 + signal when killed) and its peak RSS.
    struct Exit {
        let status: Int32
        /// `ru_maxrss` of the child itself (kB on Linux), from `wait4`.
        let maxRSSKilobytes: Int
    }

    let pid: pid_t
    let started: ContinuousClock.Instant
    private let stdoutFD: Int32
    private var pending: [UInt8] = []
    private var exit: Exit?

    /// Starts `executable ARGUMENTS` with `environment` (default: this process's), stdout on a
    /// pipe (or `stdoutFile`), stderr to `stderrFile` (default /dev/null), stdin /dev/null.
    init(executable: String, arguments: [String], environment: [String: String]? = nil,
         stdoutFile: String? = nil, stderrFile: String? = nil) throws {
        var pipeFDs: [Int32] = [-1, -1]
        guard pipe(&pipeFDs) == 0 else { throw LaunchError(description: "pipe: \(String(cString: strerror(errno)))") }
        for fd in pipeFDs { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = ClientProcessRunner.spawnFileActions()
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        if let stdoutFile {
            posix_spawn_file_actions_addopen(&actions, 1, stdoutFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        } else {
            posix_spawn_file_actions_adddup2(&actions, pipeFDs[1], 1)
        }
        posix_spawn_file_actions_addopen(&actions, 2, stderrFile ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        var attributes = ClientProcessRunner.spawnAttributes()
        defer { posix_spawnattr_destroy(&attributes) }
        let env = (environment ?? ProcessInfo.processInfo.environment).sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        var child: pid_t = 0
        let argv = [executable] + arguments
        started = ContinuousClock.now
        let result = Self.withCStrings(argv) { cArgv in
            Self.withCStrings(env) { cEnv in posix_spawn(&child, executable, &actions, &attributes, cArgv, cEnv) }
        }
        close(pipeFDs[1])
        guard result == 0 else {
            close(pipeFDs[0])
            throw LaunchError(description: "cannot start \(executable): \(String(cString: strerror(result)))")
        }
        pid = child
        stdoutFD = pipeFDs[0]
    }

    deinit {
        if exit == nil { _ = terminate(grace: .seconds(2)) }
        close(stdoutFD)
    }

    /// The first line the child writes on stdout (without the newline), or nil when it closes
    /// stdout or `timeout` passes first.
    func readLine(timeout: Duration) -> String? {
        let deadline = ContinuousClock.now + timeout
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            if let newline = pending.firstIndex(of: UInt8(ascii: "\n")) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                return line
            }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return nil }
            var descriptor = pollfd(fd: stdoutFD, events: Int16(POLLIN), revents: 0)
            let milliseconds = Int32(max(1, min(Double(Int32.max), Self.seconds(left) * 1000)))
            let ready = poll(&descriptor, 1, milliseconds)
            if ready < 0 && errno == EINTR { continue }
            guard ready > 0 else { continue }
            let count = chunk.withUnsafeMutableBytes { read(stdoutFD, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { return nil }
            pending.append(contentsOf: chunk[0..<count])
        }
    }

    /// Waits for the child to exit on its own, at most `timeout`; nil if it is still running.
    func wait(timeout: Duration) -> Exit? {
        if let exit { return exit }
        let deadline = ContinuousClock.now + timeout
        while true {
            if let exit = reap(block: false) { return exit }
            if ContinuousClock.now >= deadline { return nil }
            usleep(5_000)
        }
    }

    /// SIGTERM to the child's group, SIGKILL after `grace`; returns how it ended.
    @discardableResult
    func terminate(grace: Duration) -> Exit {
        if let exit { return exit }
        kill(-pid, SIGTERM)
        if let exit = wait(timeout: grace) {
            kill(-pid, SIGKILL)  // whatever it left behind in its group
            return exit
        }
        kill(-pid, SIGKILL)
        return reap(block: true) ?? Exit(status: 137, maxRSSKilobytes: 0)
    }

    private func reap(block: Bool) -> Exit? {
        var status: Int32 = 0
        var usage = rusage()
        while true {
            let result = wait4(pid, &status, block ? 0 : WNOHANG, &usage)
            if result == pid {
                let code: Int32 = status & 0x7F == 0 ? (status >> 8) & 0xFF : 128 + (status & 0x7F)
                let ended = Exit(status: code, maxRSSKilobytes: Int(usage.ru_maxrss))
                exit = ended
                return ended
            }
            if result < 0 && errno == EINTR { continue }
            return nil
        }
    }

    static func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }

    static func withCStrings<R>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> R) -> R {
        var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
        pointers.append(nil)
        defer { pointers.forEach { free($0) } }
        return body(pointers)
    }

    /// The resident set of `root` and all its descendants now, in kB, from /proc (Linux);
    /// nil where /proc is not there.
    static func treeRSSKilobytes(root: pid_t) -> Int? {
        guard let entries = try? FileManager.default.contentsOfDirectory(atPath: "/proc") else { return nil }
        var parent: [pid_t: pid_t] = [:]
        for entry in entries {
            guard let pid = pid_t(entry), let fields = statFields(pid) else { continue }
            if fields.count > 1, let ppid = pid_t(fields[1]) { parent[pid] = ppid }
        }
        let pageKilobytes = Int(sysconf(Int32(_SC_PAGESIZE))) / 1024
        var total = 0
        for pid in parent.keys {
            var cursor = pid
            var depth = 0
            while cursor != root, cursor > 1, depth < 64, let next = parent[cursor] {
                cursor = next
                depth += 1
            }
            guard cursor == root,
                  let statm = try? String(contentsOfFile: "/proc/\(pid)/statm", encoding: .utf8) else { continue }
            let fields = statm.split(separator: " ")
            if fields.count > 1, let pages = Int(fields[1]) { total += pages * pageKilobytes }
        }
        return total
    }

    /// The fields of /proc/PID/stat after "pid (comm)": state is the first, ppid the second,
    /// utime and stime the 12th and 13th (proc(5)); comm may hold spaces, so split after ")".
    static func statFields(_ pid: pid_t) -> [Substring]? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let close = stat.lastIndex(of: ")") else { return nil }
        return stat[stat.index(after: close)...].split(separator: " ")
    }

    /// CPU seconds (utime + stime) of another process, from /proc/PID/stat.
    static func cpuSeconds(of pid: pid_t) -> Double? {
        guard let fields = statFields(pid), fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else {
            return nil
        }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// CPU seconds (user + system) of this process.
    static func ownCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Darwin)
        getrusage(RUSAGE_SELF, &usage)
        #else
        getrusage(RUSAGE_SELF.rawValue, &usage)
        #endif
        func seconds(_ t: timeval) -> Double { Double(t.tv_sec) + Double(t.tv_usec) / 1e6 }
        return seconds(usage.ru_utime) + seconds(usage.ru_stime)
    }

    /// The path of the running executable (this `samlharness`).
    static var currentExecutable: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// A free TCP port on 127.0.0.1 (bound, read, released: a small race, fine on loopback).
    static func freeLoopbackPort() -> Int? {
        #if canImport(Darwin)
        let fd = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0 else { return nil }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return named == 0 ? Int(UInt16(bigEndian: address.sin_port)) : nil
    }
}
