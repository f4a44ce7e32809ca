import Foundation
import Harness
import MockServers
import SAMLCore
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// HTTP cases: one mock suite per group; each case is sent raw to the mock its URL names.
enum HostileHTTPRunner {
    static func run(_ group: HostileCorpus.Group, report: inout HostileReport) async throws {
        let payloads = try HostileCorpus.payloads()
        let suite = try await MockSuite.start(profile: try SuiteFixture.profile(group.profile), mockIdPDirectory: SuiteFixture.mockIdP)
        do {
            let variables = variables(suite)
            for hostile in group.cases {
                let recipes = HostileRecipes(payloads: payloads, variables: variables, input: hostile.input)
                let (port, request) = try build(hostile.delivery, recipes: recipes, suite: suite)
                let answer = await RawHTTP.exchange(port: port, request: request)
                var problems = check(answer, hostile.expect)
                if answer.transportError != nil || answer.status >= 500 {
                    // The mock must still be up after whatever that was.
                    if let failure = await probe(["method": "GET", "url": urlOf(hostile.delivery)], suite: suite, recipes: recipes) {
                        problems.append("the mock stopped serving: \(failure)")
                    }
                }
                report.record(hostile, outcome: answer.status == 0 ? "no answer (\(answer.transportError ?? "?"))" : "HTTP \(answer.status)",
                              seconds: answer.seconds, problems: problems, excerpt: answer.bodyText)
            }
            // The server keeps serving: every probe of the group, then a whole Web SSO login.
            let recipes = HostileRecipes(payloads: payloads, variables: variables, input: nil)
            for spec in group.probes {
                if let failure = await probe(spec, suite: suite, recipes: recipes) {
                    Issue.record("\(group.name): after the corpus, \(failure)")
                }
            }
            let browser = TestBrowser()
            do {
                let final = try await SuiteFixture.webSSO(suite, browser)
                #expect(final.status == 200, "\(group.name): a normal Web SSO login after the corpus ended with \(final.status)")
            } catch {
                Issue.record("\(group.name): a normal Web SSO login after the corpus failed: \(error)")
            }
            try await browser.shutdown()
            report.note("traffic log: \(suite.log.entries.count) entries, \(suite.log.storedBodyBytes / 1024) KiB of bodies kept")
        } catch {
            await suite.stop()
            throw error
        }
        await suite.stop()
    }

    static func variables(_ suite: MockSuite) -> [String: String] {
        var variables = ["spEntityID": suite.environment.spEntityID, "idpEntityID": suite.environment.idpEntityID,
                         "repo": SuiteFixture.repository.path]
        for binding in suite.servers.bindings { variables[binding.name] = binding.baseURL }
        return variables
    }

    static func urlOf(_ delivery: [String: Any]) -> String {
        let url = delivery["url"] as? String ?? "sp:/"
        return String(url.prefix { $0 != "?" })
    }

    /// `mock:/path` → the mock's port and the path.
    static func resolve(_ url: String, suite: MockSuite) throws -> (Int, String) {
        guard let colon = url.firstIndex(of: ":"), let binding = suite.servers.binding(of: String(url[..<colon])) else {
            throw HostileCorpus.LoadError("url \(url) does not name a mock (sp:, idp:, cas:, adfs:, cm:, auth:, control:)")
        }
        return (binding.port, String(url[url.index(after: colon)...]))
    }

    /// The request's bytes, exactly as the case describes them (README.md, "Deliveries").
    static func build(_ delivery: [String: Any], recipes: HostileRecipes, suite: MockSuite) throws -> (Int, [UInt8]) {
        let (port, path) = try resolve(delivery["url"] as? String ?? "sp:/", suite: suite)
        if let raw = delivery["raw"] {
            let vars = HostileRecipes(payloads: recipes.payloads, variables: recipes.variables.merging(["host": "127.0.0.1:\(port)"]) { $1 },
                                      input: recipes.input)
            return (port, try vars.bytes(raw))
        }
        var target = Array(recipes.substitute(path).utf8)
        if let replaced = delivery["path"] { target = try recipes.bytes(replaced) }
        if let query = delivery["query"] {
            target += Array((path.contains("?") ? "&" : "?").utf8) + (try recipes.bytes(query))
        }
        var headers: [(String, [UInt8])] = []
        var body: [UInt8]?
        if let form = delivery["formBody"] {
            body = try recipes.bytes(["form": form])
            headers.append(("Content-Type", Array("application/x-www-form-urlencoded".utf8)))
        }
        if let raw = delivery["body"] { body = try recipes.bytes(raw) }
        if let type = delivery["contentType"] as? String {
            headers.removeAll { $0.0 == "Content-Type" }
            headers.append(("Content-Type", Array(type.utf8)))
        }
        for pair in delivery["headers"] as? [[Any]] ?? [] {
            headers.append((pair.first as? String ?? "X-Empty", try recipes.bytes(pair.count > 1 ? pair[1] : "")))
        }
        if let extra = delivery["headerBlock"] { headers.append(("", try recipes.bytes(extra))) }
        let method = delivery["method"] as? String ?? (body == nil ? "GET" : "POST")
        var request = Array("\(method) ".utf8) + target + Array(" HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n".utf8)
        for (name, value) in headers {
            request += name.isEmpty ? value : Array("\(name): ".utf8) + value
            request += [13, 10]
        }
        let explicitLength = headers.contains { ["content-length", "transfer-encoding"].contains($0.0.lowercased()) }
        if let body, !explicitLength { request += Array("Content-Length: \(body.count)\r\n".utf8) }
        request += Array("Connection: close\r\n\r\n".utf8)
        if let body { request += body }
        return (port, request)
    }

    static func check(_ answer: RawHTTPAnswer, _ expect: HostileCorpus.Expectation) -> [String] {
        var problems: [String] = []
        if answer.status == 0 {
            problems.append("no HTTP answer: \(answer.transportError ?? "closed without a status line")")
        } else if let range = expect.status, !range.contains(answer.status) {
            problems.append("status \(answer.status), expected \(range.lowerBound)…\(range.upperBound)")
        }
        if answer.status >= 500, !(expect.status.map { $0.upperBound >= 500 } ?? false) {
            problems.append("a server error (\(answer.status)) where the input was at fault")
        }
        // Header injection: no header the client did not send for (CRLF smuggled into a value).
        for (name, value) in answer.headers {
            if name.lowercased() == "x-injected" { problems.append("injected header `\(name): \(value)`") }
            if name.lowercased() == "set-cookie", value.lowercased().hasPrefix("injected") {
                problems.append("injected cookie `\(value)`")
            }
        }
        if answer.headerLines.contains(where: { !$0.isEmpty && !$0.contains(":") }) {
            problems.append("a header line without a colon (split header)")
        }
        // What names the problem may be in a header (a 413's reason) or the body; what must not
        // appear is judged on the body, where a browser would render it (a Location header is
        // never rendered: header injection is judged above).
        let text = answer.headerLines.joined(separator: "\n") + "\n\n" + answer.bodyText
        var named = expect
        named.absent = []
        var rendered = expect
        rendered.errors = []
        return problems + HostileChecks.text(text, named, seconds: answer.seconds)
            + HostileChecks.text(answer.bodyText, rendered, seconds: 0)
    }

    /// Sends one ordinary request; nil when it was answered below 500.
    static func probe(_ spec: [String: Any], suite: MockSuite, recipes: HostileRecipes) async -> String? {
        guard let (port, request) = try? build(spec, recipes: recipes, suite: suite) else { return "the probe \(spec) cannot be built" }
        let answer = await RawHTTP.exchange(port: port, request: request)
        let range = (spec["status"] as? [Int]).map { $0[0]...$0[1] } ?? 200...499
        guard answer.status != 0, range.contains(answer.status) else {
            return "\(spec["method"] ?? "GET") \(spec["url"] ?? "?") got \(answer.status == 0 ? answer.transportError ?? "no answer" : "HTTP \(answer.status)")"
        }
        if let expected = spec["error"] as? String, !answer.bodyText.contains(expected) {
            return "\(spec["url"] ?? "?") answered without `\(expected)`"
        }
        return nil
    }
}

/// CLI cases: the input is written to a file, `samlharness` runs on it, several at a time.
enum HostileCLIRunner {
    /// Children at a time: the machine's two cores are shared, and each case is timed.
    static let batch = 2

    struct Prepared: Sendable {
        let index: Int
        let arguments: [String]
        let stdin: String?
        let rssFile: String
    }

    static func run(_ group: HostileCorpus.Group, report: inout HostileReport) async throws {
        let payloads = try HostileCorpus.payloads()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-hostile-\(group.name)-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let variables = ["repo": SuiteFixture.repository.path, "keys": SuiteFixture.mockIdP.appendingPathComponent("keys").path,
                         "tmp": directory.path]
        var prepared: [Prepared] = []
        for (index, hostile) in group.cases.enumerated() {
            let recipes = HostileRecipes(payloads: payloads, variables: variables.merging(["index": String(index)]) { $1 },
                                         input: hostile.input)
            let name = (hostile.delivery["file"] as? String).map(recipes.substitute) ?? "input-\(index)"
            let input = directory.appendingPathComponent(name)
            if hostile.input != nil { try Data(try recipes.bytes(hostile.input)).write(to: input) }
            let out = directory.appendingPathComponent("hostile-out-\(index).yaml").path
            let arguments = (hostile.delivery["args"] as? [String] ?? []).map {
                recipes.substitute($0).replacingOccurrences(of: "{input}", with: input.path).replacingOccurrences(of: "{out}", with: out)
            }
            let stdin = hostile.delivery["stdin"] != nil ? String(decoding: try recipes.bytes(hostile.delivery["stdin"]), as: UTF8.self) : nil
            prepared.append(Prepared(index: index, arguments: arguments, stdin: stdin,
                                     rssFile: directory.appendingPathComponent("rss-\(index)").path))
        }
        let binary = HarnessBinary.url.path
        var outcomes: [Int: (ClientProcess.Outcome?, Double, String?)] = [:]
        for start in stride(from: 0, to: prepared.count, by: batch) {
            let slice = prepared[start..<min(start + batch, prepared.count)]
            await withTaskGroup(of: (Int, ClientProcess.Outcome?, Double, String?).self) { tasks in
                for item in slice {
                    tasks.addTask {
                        let began = DispatchTime.now()
                        do {
                            // GNU time writes the child's own peak resident size (KiB) beside its inputs.
                            let outcome = try await ClientProcess.run("/usr/bin/time", ["-f", "%M", "-o", item.rssFile, binary] + item.arguments,
                                                                      timeout: 10, stdin: item.stdin)
                            return (item.index, outcome, Self.seconds(since: began), nil)
                        } catch {
                            return (item.index, nil, Self.seconds(since: began), "\(error)")
                        }
                    }
                }
                for await (index, outcome, seconds, error) in tasks { outcomes[index] = (outcome, seconds, error) }
            }
        }
        var largestChild = ("", 0)
        for (index, hostile) in group.cases.enumerated() {
            guard let (outcome, seconds, launchError) = outcomes[index], let outcome else {
                report.record(hostile, outcome: "not run", seconds: 0, problems: ["could not run: \(outcomes[index]?.2 ?? "?")"], excerpt: "")
                continue
            }
            _ = launchError
            var problems: [String] = []
            if let exits = hostile.expect.exit, !exits.contains(outcome.status) {
                problems.append("exit \(outcome.status), expected \(exits.map(String.init).joined(separator: " or "))")
            }
            if outcome.status < 0 || outcome.status > 2 { problems.append("exit \(outcome.status): crashed or was stopped") }
            let text = outcome.stdout + "\n" + outcome.stderr
            problems += HostileChecks.text(text, hostile.expect, seconds: seconds)
            let rss = (try? String(contentsOfFile: prepared[index].rssFile, encoding: .utf8))
                .flatMap { Int($0.split(separator: "\n").last ?? "") } ?? 0
            if rss > largestChild.1 { largestChild = (hostile.id, rss) }
            if rss > HostileCorpusTests.maxChildKiB { problems.append("the child used \(rss / 1024) MiB resident") }
            report.record(hostile, outcome: "exit \(outcome.status)", seconds: seconds, problems: problems,
                          excerpt: outcome.stdout.prefix(200) + " | " + outcome.stderr.prefix(200))
        }
        report.note("largest child: \(largestChild.0) \(largestChild.1 / 1024) MiB resident")
    }

    static func seconds(since start: DispatchTime) -> Double {
        Double(DispatchTime.now().uptimeNanoseconds - start.uptimeNanoseconds) / 1e9
    }
}

/// Scenario YAML cases: the input is written to `<file>.yaml` and loaded by ScenarioLoader,
/// which must refuse it (or, for a control case, accept it) and say why.
enum HostileScenarioRunner {
    static func run(_ group: HostileCorpus.Group, report: inout HostileReport) throws {
        let payloads = try HostileCorpus.payloads()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("samlh-hostile-yaml-\(getpid())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let loader = ScenarioLoader(mockIdPDirectory: SuiteFixture.mockIdP)
        for hostile in group.cases {
            let recipes = HostileRecipes(payloads: payloads, variables: ["repo": SuiteFixture.repository.path], input: hostile.input)
            let url = directory.appendingPathComponent((hostile.delivery["file"] as? String ?? "hostile-case") + ".yaml")
            try Data(try recipes.bytes(hostile.input)).write(to: url)
            let began = DispatchTime.now()
            var message = ""
            var loaded = false
            do {
                _ = try loader.load(file: url)
                loaded = true
            } catch {
                message = "\(error)"
            }
            let seconds = HostileCLIRunner.seconds(since: began)
            var problems: [String] = []
            if loaded != hostile.expect.accept {
                problems.append(loaded ? "the scenario loaded; it must be refused" : "the control scenario was refused")
            }
            problems += HostileChecks.text(message, hostile.expect, seconds: seconds)
            report.record(hostile, outcome: loaded ? "loaded" : "refused", seconds: seconds, problems: problems, excerpt: message)
        }
    }
}
