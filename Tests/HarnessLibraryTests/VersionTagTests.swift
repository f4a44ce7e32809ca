import Foundation
import Harness
import Testing

/// What a package that pins SAMLHarness by version gets is the commit its tag names: that
/// commit's `HarnessVersion.current` (in every report and `--version`) must be the tag's.
/// A release is the commit that sets the version, tagged `vMAJOR.MINOR.PATCH`.
@Suite struct VersionTagTests {
    static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The newest version tag reachable from HEAD; nil when the clone has none (a shallow CI
    /// clone fetches no tags; a source tarball is no git checkout). Through the harness's own
    /// process runner (posix_spawn), not Foundation's `Process`, whose `run()` is not safe beside
    /// the other tests' launches in this process (it crashed in a memcpy).
    static let newestTag: String? = {
        let command = "exec git describe --tags --abbrev=0 --match 'v[0-9]*.[0-9]*.[0-9]*' 2>/dev/null"
        let outcome = ClientProcessRunner().runBlocking(command: command, directory: repository.path,
                                                        environment: ProcessInfo.processInfo.environment, timeout: 30)
        let tag = outcome.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
        return outcome.status == 0 && !tag.isEmpty ? tag : nil
    }()

    @Test func theVersionIsSemantic() {
        let parts = HarnessVersion.current.split(separator: ".", omittingEmptySubsequences: false)
        #expect(parts.count == 3 && parts.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && Int($0) != nil },
                "HarnessVersion.current is `\(HarnessVersion.current)`, not MAJOR.MINOR.PATCH")
    }

    @Test(.enabled(if: newestTag != nil, "the clone has no version tags (a shallow clone fetches none)"))
    func theNewestTagIsThisVersion() throws {
        let tag = try #require(Self.newestTag)
        #expect(tag == "v" + HarnessVersion.current,
                "HarnessVersion.current is \(HarnessVersion.current) but the newest version tag before HEAD is \(tag): tag the commit that sets the version (`git tag v\(HarnessVersion.current)`), or set the version to the tag's")
    }
}
