import Foundation

/// How an external client ended when it did not end by reporting: it never started (a setup
/// mistake — the command is not found, not executable, its directory is missing), or it
/// crashed (a signal the runner did not send, an unhandled exception and no result file).
/// Neither is a conformance verdict: a setup mistake is an `error` in its own words, a crash is
/// `crashed` and never counts as reporting a failure (docs/running-clients.md, "What counts as
/// reporting").
public enum ClientEnding {
    /// Why the client could not start, from its exit status and the shell's own message: 127
    /// (`/bin/sh: 1: NAME: not found`, `cd: can't cd to DIR`) or 126 (`Permission denied`), with
    /// no result file written. A command the client itself runs that is missing counts too (a
    /// wrapper script calling a tool that is not installed).
    public static func startFailure(status: Int32?, stderr: String, reportWritten: Bool, command: String) -> String? {
        guard let status, status == 126 || status == 127, !reportWritten else { return nil }
        let lines = stderr.split(whereSeparator: \.isNewline).map(String.init)
        let firstWord = Self.firstWord(of: command)
        for line in lines.reversed() {
            if let range = line.range(of: "can't cd to ") {
                return "the client's directory does not exist: \(line[range.upperBound...])"
            }
            guard let (name, problem) = shellComplaint(line) else { continue }
            if problem == "Permission denied" || status == 126 {
                return "the client command could not be executed: \(name): permission denied "
                    + "(make it executable, or run it with its interpreter: `python3 \(name)`, `bash \(name)`)"
            }
            if line.hasPrefix("/bin/sh:") || line.hasPrefix("sh:") {
                return name == firstWord || firstWord == nil
                    ? "the client command was not found: \(name)"
                    : "a command the client runs was not found: \(name)"
            }
            return "a command the client runs was not found: \(name) (\(line.trimmingCharacters(in: .whitespaces)))"
        }
        return status == 127
            ? "the client exited 127 (the shell's status for a command not found) and wrote no result"
                + (lines.last.map { ": \($0)" } ?? "")
            : "the client exited 126 (the shell's status for a command that cannot be executed) and wrote no result"
                + (lines.last.map { ": \($0)" } ?? "")
    }

    /// `NAME` and the complaint of a shell's `PREFIX: [line] N: NAME: not found` (dash),
    /// `…: NAME: command not found` (bash), `…: NAME: Permission denied`.
    static func shellComplaint(_ line: String) -> (String, String)? {
        for problem in ["command not found", "not found", "Permission denied"] {
            guard line.hasSuffix(": " + problem) else { continue }
            let head = line.dropLast(problem.count + 2)
            guard let colon = head.range(of: ": ", options: .backwards) else { return nil }
            let name = String(head[colon.upperBound...])
            return name.isEmpty ? nil : (name, problem)
        }
        return nil
    }

    /// The command's first word, as `/bin/sh` would run it (variable assignments skipped; a
    /// quoted first word unquoted).
    static func firstWord(of command: String) -> String? {
        var words = command.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
        while let first = words.first, first.contains("="), !first.hasPrefix("'"), !first.hasPrefix("\"") {
            words.removeFirst()
        }
        guard var word = words.first else { return nil }
        if word.hasPrefix("'") || word.hasPrefix("\"") {
            let quote = word.first!
            let rest = command.drop { $0 != quote }.dropFirst()
            word = String(rest.prefix { $0 != quote })
        }
        return word
    }

    /// Signals a process dies of when it crashes (not the runner's SIGTERM/SIGKILL at a
    /// timeout, which is a timeout).
    static let crashSignals: [Int32: String] = [4: "SIGILL", 5: "SIGTRAP", 6: "SIGABRT", 7: "SIGBUS", 8: "SIGFPE",
                                                9: "SIGKILL", 11: "SIGSEGV", 15: "SIGTERM", 31: "SIGSYS"]

    /// How the client crashed, or nil: it was ended by a signal the runner did not send; it
    /// exited with a shell's 128 + a crash signal; or it died of an unhandled exception (a
    /// Python traceback, a Java, JavaScript, Ruby, Go, Rust, .NET or PHP uncaught-error trace)
    /// and wrote no result file.
    public static func crash(_ execution: ClientExecution) -> String? {
        guard !execution.byHand, !execution.timedOut, execution.stopped == nil, execution.startFailure == nil,
              execution.launchError == nil else { return nil }
        if let signal = execution.signal {
            return "it was ended by signal \(signal)" + (crashSignals[signal].map { " (\($0))" } ?? "")
        }
        guard let status = execution.status, status != 0 else { return nil }
        if execution.report == nil, status > 128, let name = crashSignals[status - 128], status - 128 != 15 {
            return "it exited \(status), the status a shell gives for a child ended by signal \(status - 128) (\(name)), and wrote no result"
        }
        if execution.report == nil, let kind = unhandledException(in: execution.stderr) ?? unhandledException(in: execution.stdout) {
            return "it died of an unhandled exception (\(kind)) and wrote no result"
        }
        return nil
    }

    /// The language whose unhandled-exception trace ends `text`, if one does.
    static func unhandledException(in text: String) -> String? {
        let tail = String(text.suffix(16 * 1024))
        if tail.contains("Traceback (most recent call last):") { return "a Python traceback" }
        if tail.contains("Exception in thread \"") { return "a Java exception" }
        if tail.range(of: #"goroutine \d+ \[running\]:"#, options: .regularExpression) != nil, tail.contains("panic: ") {
            return "a Go panic"
        }
        if tail.contains("thread 'main' panicked at") { return "a Rust panic" }
        if tail.contains("Unhandled exception. ") || tail.contains("Unhandled Exception: ") { return "a .NET exception" }
        if tail.contains("PHP Fatal error:  Uncaught") || tail.contains("Fatal error: Uncaught") { return "a PHP exception" }
        if tail.range(of: #":in `[^']*': .* \([A-Z][A-Za-z:]*(Error|Exception)\)"#, options: .regularExpression) != nil {
            return "a Ruby exception"
        }
        if tail.range(of: #"(?m)^(Uncaught )?[A-Z]?[A-Za-z]*Error: .*\n(\s+at .+\n?)+"#, options: .regularExpression) != nil,
           tail.contains("node:") || tail.range(of: #"(?m)^\s+at .+:\d+:\d+\)?$"#, options: .regularExpression) != nil {
            return "a JavaScript exception"
        }
        return nil
    }

    /// The last `count` non-empty lines of the client's output (stderr, else stdout).
    public static func lastLines(_ execution: ClientExecution, count: Int = 5) -> String {
        let text = execution.stderr.isEmpty ? execution.stdout : execution.stderr
        let lines = text.split(whereSeparator: \.isNewline).suffix(count)
        return lines.joined(separator: "\n")
    }
}
