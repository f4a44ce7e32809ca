import Foundation

/// Item 4 of issue 9: `samlharness serve` from exec to its ready line, measured as a user
/// sees it — the built binary started with `posix_spawn`, the clock stopped when the JSON
/// ready line arrives on its stdout, then SIGTERM. Several runs; the median counts.
struct ServeStartup: Codable, Sendable {
    /// Exec → ready line, per run (ms).
    var runsMilliseconds: [Double]
    var medianMilliseconds: Double
    /// What serve itself reports (`startup_ms` of the ready line: from `main` to listening), median.
    var reportedMedianMilliseconds: Double?
    var failures: [String]

    /// The fields of the ready line read here.
    struct ReadyLine: Decodable {
        let event: String
        let startupMilliseconds: Double?

        enum CodingKeys: String, CodingKey {
            case event, startupMilliseconds = "startup_ms"
        }
    }

    static func measure(executable: String, mockIdPDirectory: URL, runs: Int, profile: String = "shibboleth") -> ServeStartup {
        var wall: [Double] = []
        var reported: [Double] = []
        var failures: [String] = []
        for _ in 0..<runs {
            do {
                let process = try BenchProcess(executable: executable,
                                               arguments: ["serve", "--profile", profile, "--mockidp-dir", mockIdPDirectory.path])
                let line = process.readLine(timeout: .seconds(30))
                let elapsed = BenchProcess.seconds(ContinuousClock.now - process.started) * 1000
                process.terminate(grace: .seconds(5))
                guard let line, let ready = try? JSONDecoder().decode(ReadyLine.self, from: Data(line.utf8)),
                      ready.event == "ready" else {
                    failures.append("serve printed no ready line within 30 s")
                    continue
                }
                wall.append(BenchFormat.round(elapsed, 1))
                if let ms = ready.startupMilliseconds { reported.append(ms) }
            } catch {
                failures.append("\(error)")
            }
        }
        return ServeStartup(runsMilliseconds: wall, medianMilliseconds: BenchFormat.round(BenchFormat.median(wall), 1),
                            reportedMedianMilliseconds: reported.isEmpty ? nil : BenchFormat.round(BenchFormat.median(reported), 1),
                            failures: failures)
    }
}
