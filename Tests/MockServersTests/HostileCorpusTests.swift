import Foundation
import Harness
import MockServers
import SAMLCore
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// Runs the hostile-input corpus (Tests/Hostile/, issue 8 item 1) against every entry point
/// that reads outside input. Every case must be answered within its time limit (5 s, a hang
/// detector with 5× headroom, unless the case says otherwise) with the expected status or exit code and an error that names what was
/// wrong; no answer may carry an injected header or leak what it must not; after each group
/// every mock still serves a normal request, and memory stays bounded.
@Suite(.serialized) struct HostileCorpusTests {
    /// The most the test process's resident memory may grow over one group, and the most a
    /// CLI child may use, in KiB.
    static let maxGroupGrowthKiB = 384 * 1024
    static let maxChildKiB = 256 * 1024

    @Test func theCorpusHoldsAtLeast300CasesWithUniqueIDs() throws {
        var ids = Set<String>()
        var total = 0
        for file in HostileCorpus.groupFiles {
            let group = try HostileCorpus.group(file)
            for hostile in group.cases {
                #expect(ids.insert(hostile.id).inserted, "duplicate case id \(hostile.id) in \(file)")
                total += 1
            }
        }
        #expect(total >= 300, "the corpus has \(total) cases")
        // Every payload a case names exists.
        let payloads = try HostileCorpus.payloads()
        let text = HostileCorpus.groupFiles.compactMap {
            try? String(contentsOf: HostileCorpus.directory.appendingPathComponent($0), encoding: .utf8)
        }.joined()
        for match in text.matches(of: #/"ref"\s*:\s*"([^"]+)"/#) {
            #expect(payloads[String(match.1)] != nil, "no payload named \(match.1)")
        }
    }

    /// The checks would see an injection if one happened: a header smuggled through CR LF, a
    /// bare-LF split, unescaped markup.
    @Test func theChecksSeeAnInjectedHeaderAndUnescapedMarkup() {
        var answer = RawHTTPAnswer()
        RawHTTP.parse(Array("HTTP/1.1 302 Found\r\nLocation: /a\r\nX-Injected: 1\nSet-Cookie: injected=1\r\nContent-Length: 25\r\n\r\n<script>alert(1)</script>".utf8),
                      into: &answer)
        let expect = HostileCorpus.Expectation(status: 300...399, exit: nil, errors: [], absent: ["<script>alert(1)</script>"],
                                               maxSeconds: 1, accept: false)
        let problems = HostileHTTPRunner.check(answer, expect)
        #expect(problems.contains { $0.contains("injected header `X-Injected") })
        #expect(problems.contains { $0.contains("injected cookie") })
        #expect(problems.contains { $0.contains("<script>") })
    }

    @Test(arguments: HostileCorpus.groupFiles)
    func group(_ file: String) async throws {
        let group = try HostileCorpus.group(file)
        let before = Self.residentKiB()
        var report = HostileReport(group: group.name)
        switch group.runner {
        case "http": try await HostileHTTPRunner.run(group, report: &report)
        case "cli": try await HostileCLIRunner.run(group, report: &report)
        case "scenario": try HostileScenarioRunner.run(group, report: &report)
        default: Issue.record("\(file): unknown runner \(group.runner)")
        }
        let growth = Self.residentKiB() - before
        report.note("resident memory growth over the group: \(growth / 1024) MiB")
        #expect(growth < Self.maxGroupGrowthKiB, "\(group.name): resident memory grew by \(growth / 1024) MiB")
        report.finish()
    }

    /// VmRSS of this process, KiB.
    static func residentKiB() -> Int {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
              let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return 0 }
        return Int(line.split(separator: " ").dropFirst().first ?? "0") ?? 0
    }
}

/// Per-case results: failures become issues naming the case; every case's outcome is also
/// written to `$TMPDIR/samlh-hostile/<group>.tsv` (id, outcome, seconds, verdict, excerpt).
struct HostileReport {
    let group: String
    private var lines: [String] = []
    private var notes: [String] = []
    private var slowest: (id: String, seconds: Double) = ("", 0)
    private var failures = 0
    private var count = 0

    init(group: String) { self.group = group }

    mutating func record(_ hostile: HostileCorpus.Case, outcome: String, seconds: Double, problems: [String], excerpt: String) {
        count += 1
        if seconds > slowest.seconds { slowest = (hostile.id, seconds) }
        let flat = String(excerpt.prefix(300).map { $0.isNewline || $0 == "\t" ? " " : $0 })
        lines.append([hostile.id, outcome, String(format: "%.3f", seconds), problems.isEmpty ? "ok" : problems.joined(separator: "; "),
                      String(flat)].joined(separator: "\t"))
        if !problems.isEmpty {
            failures += 1
            let message: String = "\(hostile.id) [\(hostile.kind) → \(hostile.target)] \(outcome) in \(String(format: "%.3f", seconds)) s: "
                + problems.joined(separator: "; ") + " — answer: \(flat.prefix(240))"
            Issue.record(Comment(rawValue: message))
        }
    }

    mutating func note(_ text: String) { notes.append(text) }

    func finish() {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-hostile")
        try? FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let text = (lines + notes.map { "# \($0)" }).joined(separator: "\n") + "\n"
        try? Data(text.utf8).write(to: directory.appendingPathComponent("\(group).tsv"))
        print("hostile \(group): \(count) cases, \(failures) failed, slowest \(slowest.id) \(String(format: "%.3f", slowest.seconds)) s; "
              + notes.joined(separator: "; "))
    }
}

/// The checks every case shares, on the text of its answer.
enum HostileChecks {
    static func text(_ answer: String, _ expect: HostileCorpus.Expectation, seconds: Double) -> [String] {
        var problems: [String] = []
        let lower = answer.lowercased()
        for error in expect.errors where !lower.contains(error.lowercased()) {
            problems.append("the answer does not name the problem (`\(error)` missing)")
        }
        for forbidden in expect.absent where answer.contains(forbidden) {
            problems.append("the answer contains `\(forbidden)`")
        }
        if seconds > expect.maxSeconds {
            problems.append("answered in \(String(format: "%.3f", seconds)) s, more than \(expect.maxSeconds) s")
        }
        for crash in ["Fatal error", "Stack dump", "Segmentation fault", "EXC_BAD", "Illegal instruction"] where answer.contains(crash) {
            problems.append("crash marker `\(crash)`")
        }
        return problems
    }
}
