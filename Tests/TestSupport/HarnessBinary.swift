import Foundation

/// The built `samlharness` executable, beside the test bundle in the build folder.
public enum HarnessBinary {
    public static var url: URL {
        var dir = URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent()
        if dir.lastPathComponent.hasSuffix(".xctest") { dir = dir.deletingLastPathComponent() }
        for candidate in [dir, dir.deletingLastPathComponent()] {
            let url = candidate.appendingPathComponent("samlharness")
            if FileManager.default.isExecutableFile(atPath: url.path) { return url }
        }
        return dir.appendingPathComponent("samlharness")
    }

    /// Runs `samlharness ARGUMENTS` from the repository root and waits for it.
    public static func run(_ arguments: [String], timeout: TimeInterval = 60) async throws -> ClientProcess.Outcome {
        try await ClientProcess.run(url.path, arguments, timeout: timeout)
    }
}
