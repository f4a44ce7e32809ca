import Foundation
#if canImport(Darwin)
import Darwin
#endif

/// Where the running executable really is, whatever `argv[0]` says: `samlharness` may be run
/// by name from `PATH`, through a symbolic link, or from another directory, and `argv[0]` is
/// then a bare name or a path relative to a directory that is not the working one.
public enum ExecutableLocation {
    /// The executable's resolved path: `/proc/self/exe` on Linux, `_NSGetExecutablePath` on
    /// macOS; else `argv[0]` looked up in `PATH` when it holds no `/`.
    public static var path: String {
        #if os(Linux)
        if let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            return target
        }
        #elseif canImport(Darwin)
        var size: UInt32 = 0
        _ = _NSGetExecutablePath(nil, &size)
        var buffer = [CChar](repeating: 0, count: Int(size) + 1)
        if _NSGetExecutablePath(&buffer, &size) == 0 {
            return URL(fileURLWithPath: String(cString: buffer)).resolvingSymlinksInPath().path
        }
        #endif
        return fromArgumentZero(CommandLine.arguments.first ?? "",
                                path: ProcessInfo.processInfo.environment["PATH"] ?? "",
                                workingDirectory: FileManager.default.currentDirectoryPath)
    }

    /// The directory holding the executable.
    public static var directory: URL {
        URL(fileURLWithPath: path).deletingLastPathComponent()
    }

    /// `argv[0]` resolved as the shell found it: a name without `/` through `PATH`, a relative
    /// path against the working directory; symbolic links resolved.
    static func fromArgumentZero(_ argument: String, path: String, workingDirectory: String) -> String {
        if !argument.contains("/") {
            for entry in path.split(separator: ":", omittingEmptySubsequences: false) {
                let base = entry.isEmpty ? workingDirectory : String(entry)
                let candidate = URL(fileURLWithPath: base).appendingPathComponent(argument).path
                if FileManager.default.isExecutableFile(atPath: candidate) {
                    return URL(fileURLWithPath: candidate).resolvingSymlinksInPath().path
                }
            }
        }
        let url = argument.hasPrefix("/") ? URL(fileURLWithPath: argument)
            : URL(fileURLWithPath: workingDirectory).appendingPathComponent(argument)
        return url.standardizedFileURL.resolvingSymlinksInPath().path
    }
}
