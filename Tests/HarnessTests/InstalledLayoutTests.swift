import Foundation
@testable import Harness
@testable import MockServers
import Testing
import TestSupport

/// An installed `samlharness` (issue 34: the Debian package, the tarball, the image) finds its
/// profiles and catalog wherever it is installed, never only relative to the working
/// directory, and `--version` names the commit. The layout `scripts/package.sh` installs:
/// `PREFIX/bin/samlharness` a symbolic link to `PREFIX/lib/samlharness/samlharness`, the data in
/// `PREFIX/share/samlharness/{MockIdP,Scenarios,build-info}`.
@Suite struct InstalledLayoutTests {
    /// A throwaway directory (removed by the caller).
    static func temporaryDirectory(_ name: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("\(name)-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// `PREFIX/share/samlharness/MockIdP/keys` (empty) and `PREFIX/lib/samlharness/`.
    static func prefix(_ name: String) throws -> (prefix: URL, libexec: URL, data: URL) {
        let prefix = try temporaryDirectory(name)
        let libexec = prefix.appendingPathComponent("lib/samlharness")
        let data = prefix.appendingPathComponent("share/samlharness")
        try FileManager.default.createDirectory(at: libexec, withIntermediateDirectories: true)
        try FileManager.default.createDirectory(at: data.appendingPathComponent("MockIdP/keys"), withIntermediateDirectories: true)
        return (prefix, libexec, data)
    }

    static func locate(environment: [String: String] = [:], workingDirectory: URL, executableDirectory: URL,
                       system: URL = URL(fileURLWithPath: "/nonexistent/share/samlharness")) throws -> URL {
        try MockIdPDirectory.locate(explicit: nil, environment: environment, workingDirectory: workingDirectory,
                                    executableDirectory: executableDirectory, systemDataDirectory: system)
    }

    // MARK: Finding MockIdP/

    @Test func theExecutableInLibSamlharnessFindsShareSamlharness() throws {
        let (prefix, libexec, data) = try Self.prefix("lib-layout")
        let elsewhere = try Self.temporaryDirectory("elsewhere")
        defer { for url in [prefix, elsewhere] { try? FileManager.default.removeItem(at: url) } }
        let found = try Self.locate(workingDirectory: elsewhere, executableDirectory: libexec)
        #expect(found.standardizedFileURL.path == data.appendingPathComponent("MockIdP").standardizedFileURL.path)
        #expect(MockIdPDirectory.isInstalled(found))
        // The older layout, the executable itself in PREFIX/bin, still works.
        let bin = prefix.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        #expect(try Self.locate(workingDirectory: elsewhere, executableDirectory: bin).standardizedFileURL.path
            == data.appendingPathComponent("MockIdP").standardizedFileURL.path)
    }

    @Test func samlhHomeNamesTheDataAndABadOneIsAnError() throws {
        let (prefix, libexec, _) = try Self.prefix("home-installed")
        let home = try Self.temporaryDirectory("samlh-home")
        let elsewhere = try Self.temporaryDirectory("elsewhere")
        defer { for url in [prefix, home, elsewhere] { try? FileManager.default.removeItem(at: url) } }
        try FileManager.default.createDirectory(at: home.appendingPathComponent("MockIdP/keys"), withIntermediateDirectories: true)
        // SAMLH_HOME wins over an installed copy and over a MockIdP/ above the working directory.
        let found = try Self.locate(environment: ["SAMLH_HOME": home.path], workingDirectory: SuiteFixture.repository,
                                    executableDirectory: libexec)
        #expect(found.path == home.appendingPathComponent("MockIdP").path)
        #expect(!MockIdPDirectory.isInstalled(found))
        // A copy of the installed data, moved and named by SAMLH_HOME, carries build-info: installed.
        try Data("commit=abc1234\n".utf8).write(to: home.appendingPathComponent(BuildInfo.fileName))
        #expect(MockIdPDirectory.isInstalled(found))
        #expect(throws: ConfigurationError.self) {
            try Self.locate(environment: ["SAMLH_HOME": elsewhere.path], workingDirectory: elsewhere, executableDirectory: libexec)
        }
    }

    @Test func theSystemCopyIsTheLastResort() throws {
        let (prefix, _, data) = try Self.prefix("system")
        let elsewhere = try Self.temporaryDirectory("elsewhere")
        let lonely = try Self.temporaryDirectory("lonely-bin")
        defer { for url in [prefix, elsewhere, lonely] { try? FileManager.default.removeItem(at: url) } }
        // An executable copied somewhere with no data beside it: /usr/share/samlharness.
        let found = try Self.locate(workingDirectory: elsewhere, executableDirectory: lonely, system: data)
        #expect(found.path == data.appendingPathComponent("MockIdP").path)
        let error = #expect(throws: ConfigurationError.self) {
            try Self.locate(workingDirectory: elsewhere, executableDirectory: lonely)
        }
        #expect(error?.message.contains("SAMLH_HOME") == true)
    }

    @Test func aCatalogLinkedIntoPlaceIsRead() throws {
        let home = try Self.temporaryDirectory("linked-home")
        defer { try? FileManager.default.removeItem(at: home) }
        let linked = home.appendingPathComponent("Scenarios")
        try FileManager.default.createSymbolicLink(at: linked, withDestinationURL: SuiteFixture.repository.appendingPathComponent("Scenarios/web-sso"))
        let files = ScenarioCatalog.scenarioFiles(under: linked)
        #expect(!files.isEmpty)
        #expect(files.count == ScenarioCatalog.scenarioFiles(under: SuiteFixture.repository.appendingPathComponent("Scenarios/web-sso")).count)
    }

    // MARK: The commit

    @Test func theCommitComesFromBuildInfoElseTheCheckout() throws {
        let (prefix, libexec, data) = try Self.prefix("build-info")
        defer { try? FileManager.default.removeItem(at: prefix) }
        #expect(BuildInfo.commit(executableDirectory: libexec) == "unknown")
        try Data("version=\(HarnessVersion.current)\ncommit=0123abc\nbuilt=2026-11-28T00:00:00Z\n".utf8)
            .write(to: data.appendingPathComponent(BuildInfo.fileName))
        #expect(BuildInfo.commit(executableDirectory: libexec) == "0123abc")
        #expect(BuildInfo.versionLine(executableDirectory: libexec) == "samlharness \(HarnessVersion.current) (0123abc)")
        // The binary built in this checkout: git's short HEAD, -dirty when tracked files differ.
        let head = try #require(BuildInfo.git(["rev-parse", "--short", "HEAD"], in: SuiteFixture.repository))
        let commit = BuildInfo.commit(executableDirectory: HarnessBinary.url.deletingLastPathComponent())
        #expect(commit == head || commit == head + "-dirty")
    }

    // MARK: End to end, as the package installs it

    /// The built binaries in `PREFIX/lib/samlharness` (hard links: `/proc/self/exe` names the
    /// link, as it names an installed file), `PREFIX/bin/samlharness` a symbolic link to it, a
    /// copy of the repository's data in `PREFIX/share/samlharness`; called by name from PATH in a
    /// directory far from the checkout.
    @Test func anInstalledCopyFindsItsCatalogNamesItsCommitAndWritesReportsInTheWorkingDirectory() async throws {
        let (prefix, libexec, data) = try Self.prefix("installed")
        let elsewhere = try Self.temporaryDirectory("elsewhere")
        defer { for url in [prefix, elsewhere] { try? FileManager.default.removeItem(at: url) } }
        let built = HarnessBinary.url.deletingLastPathComponent()
        for name in ["samlharness", "samlh-reference-client"] {
            do {
                try FileManager.default.linkItem(at: built.appendingPathComponent(name), to: libexec.appendingPathComponent(name))
            } catch {
                try FileManager.default.copyItem(at: built.appendingPathComponent(name), to: libexec.appendingPathComponent(name))
            }
        }
        try FileManager.default.removeItem(at: data.appendingPathComponent("MockIdP"))
        for name in ["MockIdP", "Scenarios"] {
            try FileManager.default.copyItem(at: SuiteFixture.repository.appendingPathComponent(name), to: data.appendingPathComponent(name))
        }
        try Data("commit=feedbee\n".utf8).write(to: data.appendingPathComponent(BuildInfo.fileName))
        let bin = prefix.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        try FileManager.default.createSymbolicLink(atPath: bin.appendingPathComponent("samlharness").path,
                                                   withDestinationPath: "../lib/samlharness/samlharness")

        let path = bin.path + ":/usr/bin:/bin"
        let version = await FirstContactTests.shell("samlharness --version", in: elsewhere, path: path)
        #expect(version.stdout == "samlharness \(HarnessVersion.current) (feedbee)\n", "\(version.stderr)")
        let count = await FirstContactTests.shell("samlharness list --count", in: elsewhere, path: path)
        let checkout = try await HarnessBinary.run(["list", "--count"])
        #expect(count.status == 0, "\(count.stderr)")
        #expect(Int(count.stdout.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0 > 0)
        #expect(count.stdout == checkout.stdout)
        let run = await FirstContactTests.shell("samlharness run --builtin reference --filter web-sso.shibboleth-form-login",
                                                in: elsewhere, path: path)
        #expect(run.status == 0, "\(run.stdout)\n\(run.stderr)")
        #expect(run.stdout.contains("PASS web-sso.shibboleth-form-login"))
        // Not beside the data (an installed copy's is read-only): ./Reports.
        #expect(FileManager.default.fileExists(atPath: elsewhere.appendingPathComponent("Reports/report.json").path))
        #expect(!FileManager.default.fileExists(atPath: data.appendingPathComponent("Reports").path))
    }
}
