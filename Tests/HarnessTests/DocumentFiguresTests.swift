import Foundation
import MockServers
import SAMLCore
import Testing
import TestSupport
@testable import Harness

/// Issue 33: no figure in README.md or docs/*.md disagrees with the binary.
///
/// The rule (docs/testing.md, "Figures in the documents"):
///
/// 1. A count the binary can make is written inside a figure marker,
///    `<!-- figure: NAME -->VALUE<!-- /figure -->`, and VALUE must be the figure NAME computed
///    here from the libraries: `scenarios` (the whole catalog under Scenarios/), `scenarios
///    FILTER` (one `list --filter` expression), `checks` (``CheckCatalog``), `knobs` (distinct
///    ``Knob`` names), `flows` (every ``Flow`` but `replay`), `attacks` (``AttackCatalog``).
///    `scripts/update-doc-figures.sh` rewrites the markers from the binary. Markers inside
///    fenced code blocks are examples (they show verbatim) and are not read.
/// 2. Outside a marker, a number (digits, or a word from two to twenty; never 0 or 1) directly
///    before `scenarios`, `checks`, `knobs`, `misconfigurations`, `flows`, `listeners` or
///    `formats` — or with one of `named`, `live`, `catalog`, `misconfiguration`, `report`
///    between — is a figure of the whole typed by hand, and fails, unless it stands in a
///    dated measurement: a section whose heading, or a heading above it, carries the run's
///    date (YYYY-MM-DD). A narrower phrase ("22 certificate-fault scenarios") is not read.
///    Documents generated whole from the binary or a run are held by their own check and
///    skipped here: ``generated``.
/// 3. `serve --port N`'s layout, found by starting ``MockSuite`` on a fixed base port (every
///    mock on http, then with the SP on https): every `N+k` names a port serve opens; every
///    range `N…N+k` is the span of one of the two layouts; every table row `| N+k | … |` names
///    the mock that listens on N+k.
/// 4. Every relative link in these files names a file that exists and, with `#anchor`, a
///    heading of that file (GitHub's anchors).
@Suite struct DocumentFiguresTests {
    static let root = SuiteFixture.repository

    /// README.md and every docs/*.md, as (path relative to the root, text).
    static let documents: [(path: String, text: String)] = {
        let docs = root.appendingPathComponent("docs")
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: docs.path)) ?? [])
            .filter { $0.hasSuffix(".md") }.sorted()
        return (["README.md"] + names.map { "docs/" + $0 }).compactMap { path in
            (try? String(contentsOf: root.appendingPathComponent(path), encoding: .utf8)).map { (path, $0) }
        }
    }()

    /// Documents written whole by a program, each held by a check of its own that regenerates
    /// it and compares: their figures are the binary's by construction.
    static let generated: [String: String] = [
        "docs/checks.md": "CheckDocumentationTests (`samlharness list --checks --markdown`)",
        "docs/real-clients.md": "scripts/real-clients.sh --check (a run of the real-client suite)",
    ]

    static let catalog = ScenarioCatalog.load(paths: [root.appendingPathComponent("Scenarios")],
                                              loader: ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP))

    /// The figure a marker names, from the libraries; nil for a name the rule does not know.
    static func truth(_ name: String) throws -> Int? {
        switch name {
        case "scenarios": return catalog.scenarios.count
        case "checks": return CheckCatalog.all.count
        case "knobs": return Set(Knob.names).count
        case "flows": return Flow.allCases.filter { $0 != .replay }.count
        case "attacks": return AttackCatalog.all.count
        default:
            guard name.hasPrefix("scenarios ") else { return nil }
            return catalog.selecting(try ScenarioFilter([String(name.dropFirst("scenarios ".count))])).count
        }
    }

    // MARK: - Lines with their context

    struct Line {
        let document: String
        let number: Int
        let text: String
        let inCode: Bool
        /// A heading of the section (or one above it) carries a date: a dated measurement.
        let dated: Bool
        var place: String { "\(document):\(number)" }
    }

    static func lines(of document: (path: String, text: String)) -> [Line] {
        var result: [Line] = []
        var fence: String?
        var headings: [(level: Int, dated: Bool)] = []
        for (index, raw) in document.text.components(separatedBy: "\n").enumerated() {
            let trimmed = raw.trimmingCharacters(in: .whitespaces)
            let isFence = trimmed.hasPrefix("```") || trimmed.hasPrefix("~~~")
            if fence == nil, !isFence, let level = headingLevel(raw) {
                headings.removeAll { $0.level >= level }
                headings.append((level, raw.range(of: #"\b\d{4}-\d{2}-\d{2}\b"#, options: .regularExpression) != nil))
            }
            let inCode = fence != nil || isFence
            result.append(Line(document: document.path, number: index + 1, text: raw, inCode: inCode,
                               dated: headings.contains { $0.dated }))
            if isFence {
                let marker = String(trimmed.prefix(3))
                if fence == nil { fence = marker } else if fence == marker { fence = nil }
            }
        }
        return result
    }

    static func headingLevel(_ line: String) -> Int? {
        let hashes = line.prefix { $0 == "#" }.count
        guard (1...6).contains(hashes), line.dropFirst(hashes).first == " " else { return nil }
        return hashes
    }

    static func matches(_ pattern: String, in text: String, options: NSRegularExpression.Options = []) -> [[String?]] {
        let regex = try! NSRegularExpression(pattern: pattern, options: options)
        let ns = text as NSString
        return regex.matches(in: text, range: NSRange(location: 0, length: ns.length)).map { match in
            (0..<match.numberOfRanges).map { match.range(at: $0).location == NSNotFound ? nil : ns.substring(with: match.range(at: $0)) }
        }
    }

    static let markerPattern = #"<!-- figure: (.*?) *-->(.*?)<!-- /figure -->"#

    /// The line without its inline code spans (shown verbatim: no marker, no link in them).
    static func withoutInlineCode(_ text: String) -> String {
        text.replacingOccurrences(of: #"(`+)(?:(?!\1).)+?\1"#, with: "``", options: .regularExpression)
    }

    // MARK: - 1. Markers

    @Test func everyFigureMarkerIsTheBinarysFigure() throws {
        #expect(Self.catalog.problems.isEmpty, "the catalog does not load: \(Self.catalog.problems.map(\.description))")
        var seen = 0
        for document in Self.documents {
            for line in Self.lines(of: document) where !line.inCode {
                let text = Self.withoutInlineCode(line.text)
                let markers = Self.matches(Self.markerPattern, in: text)
                let opened = text.components(separatedBy: "<!-- figure:").count - 1
                #expect(opened == markers.count, "\(line.place): a figure marker must open and close on one line")
                for marker in markers {
                    seen += 1
                    let name = marker[1] ?? "", stated = marker[2] ?? ""
                    guard let truth = try Self.truth(name) else {
                        Issue.record("\(line.place): unknown figure `\(name)` (docs/testing.md lists the names)")
                        continue
                    }
                    #expect(stated == String(truth),
                            "\(line.place): `\(name)` is \(truth), the document says \(stated): run bash scripts/update-doc-figures.sh")
                }
            }
        }
        #expect(seen > 0, "no figure marker found: the documents have moved?")
    }

    // MARK: - 2. Figures typed by hand

    static let numberWords = ["two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10,
                              "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15, "sixteen": 16,
                              "seventeen": 17, "eighteen": 18, "nineteen": 19, "twenty": 20]

    static var handTypedPattern: String {
        let number = #"\d[\d,]*|"# + numberWords.keys.sorted().joined(separator: "|")
        return #"(?<![\w.+/-])("# + number + #")\s+(?:(?:named|live|catalog|misconfiguration|report)\s+)?"#
            + #"(scenarios|checks|knobs|misconfigurations|flows|listeners|formats)\b"#
    }

    /// The figures typed by hand outside markers and outside dated sections, as "place: phrase".
    static func handTypedFigures(in document: (path: String, text: String)) -> [String] {
        let lines = Self.lines(of: document)
        var found: [String] = []
        for (index, line) in lines.enumerated() where !line.dated {
            // A figure may wrap onto the next line: read this line with the start of the next,
            // and keep what starts on this one.
            let strip = { (text: String) in
                text.replacingOccurrences(of: Self.markerPattern, with: "⟨figure⟩", options: .regularExpression)
            }
            let this = strip(line.text)
            let next = index + 1 < lines.count && lines[index + 1].inCode == line.inCode ? strip(lines[index + 1].text) : ""
            let text = this + " " + next
            let regex = try! NSRegularExpression(pattern: handTypedPattern, options: [.caseInsensitive])
            for match in regex.matches(in: text, range: NSRange(location: 0, length: (text as NSString).length))
            where match.range.location < (this as NSString).length {
                let number = (text as NSString).substring(with: match.range(at: 1))
                let value = Int(number.replacingOccurrences(of: ",", with: "")) ?? numberWords[number.lowercased()] ?? 0
                guard value > 1 else { continue }
                found.append("\(line.place): \((text as NSString).substring(with: match.range))")
            }
        }
        return found
    }

    @Test func noFigureOfTheWholeIsTypedByHand() {
        for document in Self.documents where Self.generated[document.path] == nil {
            for figure in Self.handTypedFigures(in: document) {
                Issue.record("\(figure) — a figure typed by hand: use a marker (bash scripts/update-doc-figures.sh), drop the number, or date the section it was measured in (docs/testing.md)")
            }
        }
    }

    /// The detector itself: what it reads and what it leaves.
    @Test func theDetectorReadsWholeFiguresOnly() {
        let text = """
        # Title
        The catalog holds 258 scenarios over the twelve live flows, judged by 62 named checks
        and 43 misconfiguration knobs; the main job runs the whole catalog (210
        scenarios).
        Held: <!-- figure: scenarios -->262<!-- /figure --> scenarios; 22 certificate-fault scenarios;
        more than 0 scenarios; one scenario a line; N+3 listeners.
        ```
        catalog (208 scenarios, all pass)
        ```
        ## Session 6 (2026-11-21)
        catalog (208 scenarios, all pass), 8 listeners
        ### The catalog
        all 208 scenarios pass
        ## Later
        5 formats
        """
        let found = Self.handTypedFigures(in: ("t.md", text)).map { $0.replacingOccurrences(of: "\n", with: " ") }
        #expect(found == ["t.md:2: 258 scenarios", "t.md:2: twelve live flows", "t.md:2: 62 named checks",
                          "t.md:3: 43 misconfiguration knobs", "t.md:3: 210 scenarios", "t.md:8: 208 scenarios",
                          "t.md:15: 5 formats"], "\(found)")
    }

    // MARK: - 3. serve's ports

    /// Each listener's offset from `--port N`, by starting the mocks as `serve --port N` does.
    static func listenerOffsets(knobs: [String]) async throws -> [String: Int] {
        var profile = try SuiteFixture.profile("shibboleth")
        profile.knobs += try knobs.map(Knob.init(parsing:))
        var lastError: (any Error)?
        for _ in 0..<20 {
            // Below the ephemeral range, so no connection of a parallel test holds one of them.
            let base = Int.random(in: 20_000...30_000)
            do {
                let suite = try await MockSuite.start(profile: profile, basePort: base, mockIdPDirectory: SuiteFixture.mockIdP)
                let offsets = Dictionary(uniqueKeysWithValues: suite.servers.bindings.map { ($0.name, $0.port - base) })
                await suite.stop()
                return offsets
            } catch {
                lastError = error  // a port of the span was taken: another base
            }
        }
        throw lastError!
    }

    /// How a document names each listener in a `| N+k | … |` row; the first that matches wins.
    static let listenerWords: [(name: String, pattern: String)] = [
        ("sp-plain", #"plain-http"#), ("idp", #"\bIdP\b"#), ("auth", #"HTTP[- ]auth"#), ("proxy", #"\bproxy\b"#),
        ("control", #"\bcontrol\b"#), ("cas", #"\bCAS\b"#), ("adfs", #"\bAD FS\b"#), ("cm", #"circulation manager"#),
        ("sp", #"\bSP\b"#),
    ]

    @Test func servePortsAreWhereTheDocumentsSay() async throws {
        try #require(MockTLS.isSetUp(), "no TLS material for the https layout: run bash scripts/setup-tls.sh")
        let plain = try await Self.listenerOffsets(knobs: [])
        let https = try await Self.listenerOffsets(knobs: ["tls"])
        let plainSpan = try #require(plain.values.max()), httpsSpan = try #require(https.values.max())
        #expect(Set(plain.values).count == plain.count && Set(https.values).count == https.count, "two mocks on one port")
        #expect(Set(plain.values) == Set(0...plainSpan) && Set(https.values) == Set(0...httpsSpan), "the ports are not consecutive")
        let byOffset = Dictionary(uniqueKeysWithValues: https.map { ($0.value, $0.key) })
        var rows = 0
        for document in Self.documents {
            for line in Self.lines(of: document) where !line.dated {
                for match in Self.matches(#"(?<![\w])N\s*\+\s*(\d+)\b"#, in: line.text) {
                    let k = Int(match[1]!)!
                    #expect(k <= httpsSpan, "\(line.place): N+\(k): serve --port N opens N…N+\(httpsSpan) at most")
                }
                for match in Self.matches(#"(?<![\w])N\s*(?:…|\.\.\.?|–|—|to)\s*N\s*\+\s*(\d+)\b"#, in: line.text) {
                    let k = Int(match[1]!)!
                    #expect(k == plainSpan || k == httpsSpan,
                            "\(line.place): N…N+\(k): serve --port N opens N…N+\(plainSpan) (N…N+\(httpsSpan) with the SP on https)")
                }
                for match in Self.matches(#"^\|\s*N(?:\s*\+\s*(\d+))?\s*\|\s*([^|]+)\|"#, in: line.text) {
                    rows += 1
                    let k = match[1].flatMap { Int($0) } ?? 0
                    let label = match[2]!
                    let named = Self.listenerWords.first { label.range(of: $0.pattern, options: .regularExpression) != nil }?.name
                    #expect(named != nil && named == byOffset[k],
                            "\(line.place): the row says N+\(k) is `\(label.trimmingCharacters(in: .whitespaces))`; serve puts \(byOffset[k] ?? "nothing") there")
                }
            }
        }
        #expect(rows >= plain.count, "the port table (docs/devices.md) is gone or moved")
    }

    // MARK: - 4. Links

    /// GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens.
    static func anchor(_ heading: String) -> String {
        String(heading.lowercased().unicodeScalars.compactMap { scalar -> Character? in
            if scalar == " " { return "-" }
            if CharacterSet.alphanumerics.contains(scalar) || scalar == "-" || scalar == "_" { return Character(scalar) }
            return nil
        })
    }

    static func anchors(of text: String) -> Set<String> {
        var seen: [String: Int] = [:]
        var result: Set<String> = []
        for line in lines(of: ("", text)) where !line.inCode {
            guard let level = headingLevel(line.text) else { continue }
            let base = anchor(String(line.text.dropFirst(level)).trimmingCharacters(in: .whitespaces))
            let count = seen[base, default: 0]
            result.insert(count == 0 ? base : "\(base)-\(count)")
            seen[base] = count + 1
        }
        return result
    }

    @Test func everyRelativeLinkResolves() {
        var links = 0
        for document in Self.documents {
            let directory = Self.root.appendingPathComponent(document.path).deletingLastPathComponent()
            for line in Self.lines(of: document) where !line.inCode {
                for match in Self.matches(#"\]\(([^)\s]+)(?:\s+"[^"]*")?\)"#, in: Self.withoutInlineCode(line.text)) {
                    let target = match[1]!
                    if target.contains("://") || target.hasPrefix("mailto:") { continue }
                    links += 1
                    let parts = target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                    let file = parts[0].isEmpty ? Self.root.appendingPathComponent(document.path)
                        : directory.appendingPathComponent(parts[0].removingPercentEncoding ?? parts[0])
                    guard FileManager.default.fileExists(atPath: file.standardizedFileURL.path) else {
                        Issue.record("\(line.place): the link `\(target)` names no file")
                        continue
                    }
                    if parts.count == 2, !parts[1].isEmpty, file.pathExtension == "md" {
                        let text = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                        #expect(Self.anchors(of: text).contains(parts[1]),
                                "\(line.place): the link `\(target)` names no heading of \(file.lastPathComponent)")
                    }
                }
            }
        }
        #expect(links > 20)
    }

    // MARK: - The script agrees

    /// `scripts/update-doc-figures.sh --check` asks the built binary what the tests above
    /// compute from the libraries: it finds nothing to change.
    @Test func theUpdateScriptFindsNothingStale() async throws {
        let outcome = try await ClientProcess.run("/usr/bin/env", [
            "SAMLH_BIN=\(HarnessBinary.url.path)", "bash", Self.root.appendingPathComponent("scripts/update-doc-figures.sh").path,
            "--check",
        ], timeout: 120)
        #expect(outcome.status == 0, "\(outcome.stderr)")
    }
}
