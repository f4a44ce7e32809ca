import Foundation
import Testing
@testable import SAMLCore

/// Replays the fuzz corpus (Tests/Fuzz/seeds, Tests/Fuzz/regressions) through the same
/// ``FuzzEntry/run(_:)`` the libFuzzer target calls (docs/fuzzing.md): every input returns,
/// none crashes, none takes longer than the fuzzer's own hang limit.
@Suite struct FuzzRegressionTests {
    static let fuzzDirectory = TestKeys.repositoryRoot.appendingPathComponent("Tests/Fuzz")
    /// libFuzzer runs with `-timeout=2`; a debug build gets the same bound.
    static let bound = Duration.seconds(2)

    static func inputs(_ folder: String) throws -> [URL] {
        let directory = fuzzDirectory.appendingPathComponent(folder)
        guard FileManager.default.fileExists(atPath: directory.path) else { return [] }
        return try FileManager.default.contentsOfDirectory(atPath: directory.path)
            .filter { !$0.hasPrefix(".") && !$0.hasSuffix(".md") }
            .sorted()
            .map { directory.appendingPathComponent($0) }
    }

    static func replay(_ file: URL) throws -> (FuzzEntry.Target?, Duration) {
        let input = try Array(Data(contentsOf: file))
        let started = ContinuousClock.now
        let target = FuzzEntry.run(input)
        return (target, ContinuousClock.now - started)
    }

    @Test func seedsReturnWithinTheBound() throws {
        let files = try Self.inputs("seeds")
        #expect(files.count >= FuzzEntry.Target.allCases.count)
        for file in files {
            let (target, elapsed) = try Self.replay(file)
            #expect(target != nil, "\(file.lastPathComponent) is empty")
            #expect(elapsed < Self.bound, "\(file.lastPathComponent) took \(elapsed)")
        }
    }

    @Test func regressionsReturnWithinTheBound() throws {
        for file in try Self.inputs("regressions") {
            let (_, elapsed) = try Self.replay(file)
            #expect(elapsed < Self.bound, "\(file.lastPathComponent) took \(elapsed)")
        }
    }

    @Test func seedsCoverEveryTarget() throws {
        let covered = Set(try Self.inputs("seeds").compactMap { FuzzEntry.target(of: try Array(Data(contentsOf: $0))) })
        #expect(covered == Set(FuzzEntry.Target.allCases))
    }

    /// The fuzzer only reaches the policies behind the signature check if the valid seed
    /// passes the fixed SP settings.
    @Test func validSeedPassesTheFuzzSPSettings() throws {
        let seed = try Array(Data(contentsOf: Self.fuzzDirectory.appendingPathComponent("seeds/spValidator-signed-response")))
        #expect(FuzzEntry.target(of: seed) == .spValidator)
        let validator = try #require(FuzzEntry.validator)
        let result = validator.validate(Array(seed.dropFirst()))
        guard case .success(let assertion) = result else {
            Issue.record("the seed Response does not validate: \(result)")
            return
        }
        #expect(assertion.nameID.value == "alice@example.org")
        #expect(assertion.signedBy == .both)
    }

    @Test func brokenSignatureSeedIsRefused() throws {
        let seed = try Array(Data(contentsOf: Self.fuzzDirectory.appendingPathComponent("seeds/spValidator-signature-broken")))
        let validator = try #require(FuzzEntry.validator)
        guard case .failure = validator.validate(Array(seed.dropFirst())) else {
            Issue.record("a Response with a changed NameID validated")
            return
        }
    }
}
