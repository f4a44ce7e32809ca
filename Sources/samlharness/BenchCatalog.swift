import Foundation
import Harness

/// Item 5 of issue 9: the whole catalog against the reference client, as CI runs it —
/// `samlharness run --builtin reference --jobs N --time-scale S` started as a child process —
/// timed from exec to exit. At `--time-scale 1` the catalog's deliberate waits (dead and slow
/// IdPs, ~77 s of them) take their real time; at 0.1 a tenth. Peak memory two ways: the runner's own `ru_maxrss` (`wait4`), and the peak of
/// the runner plus every process under it (the reference clients), sampled from /proc.
struct CatalogRun: Codable, Sendable {
    struct Slowest: Codable, Sendable {
        var scenario: String
        var seconds: Double
    }

    var jobs: Int
    /// The `--time-scale` of the run.
    var timeScale: Double
    /// The `--filter` of the run (nil: the whole catalog).
    var filter: String?
    var exitStatus: Int32
    var scenarios: Int
    var passed: Int
    var wallSeconds: Double
    var scenariosPerSecond: Double
    var runnerPeakRSSMegabytes: Double
    var treePeakRSSMegabytes: Double?
    /// The sum of every scenario's own duration, and the longest ones: with N jobs the wall
    /// time cannot drop below sum/N nor below the longest scenario.
    var scenarioSecondsSum: Double
    var slowest: [Slowest]
    var error: String?

    static func measure(executable: String, mockIdPDirectory: URL, jobs: Int, timeScale: Double = 1, filter: String? = nil,
                        timeout: Duration = .seconds(600)) -> CatalogRun {
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("samlharness-bench-catalog-\(getpid())-\(jobs)-\(timeScale)")
        try? FileManager.default.removeItem(at: work)
        try? FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        var run = CatalogRun(jobs: jobs, timeScale: timeScale, filter: filter, exitStatus: -1, scenarios: 0, passed: 0, wallSeconds: 0, scenariosPerSecond: 0,
                             runnerPeakRSSMegabytes: 0, treePeakRSSMegabytes: nil, scenarioSecondsSum: 0, slowest: [])
        let process: BenchProcess
        do {
            process = try BenchProcess(executable: executable,
                                       arguments: ["run", "--builtin", "reference", "--jobs", String(jobs),
                                                   "--time-scale", String(format: "%g", timeScale),
                                                   "--report-dir", work.path, "--format", "json",
                                                   "--mockidp-dir", mockIdPDirectory.path] + (filter.map { ["--filter", $0] } ?? []),
                                       stdoutFile: work.appendingPathComponent("stdout.txt").path,
                                       stderrFile: work.appendingPathComponent("stderr.txt").path)
        } catch {
            run.error = "\(error)"
            return run
        }
        var treePeak = 0
        var exit: BenchProcess.Exit?
        let deadline = process.started + timeout
        while exit == nil {
            if let rss = BenchProcess.treeRSSKilobytes(root: process.pid) { treePeak = max(treePeak, rss) }
            exit = process.wait(timeout: .milliseconds(50))
            if exit == nil, ContinuousClock.now >= deadline {
                exit = process.terminate(grace: .seconds(5))
                run.error = "stopped after \(timeout)"
            }
        }
        let wall = BenchProcess.seconds(ContinuousClock.now - process.started)
        let results = (try? String(contentsOf: work.appendingPathComponent("results.jsonl"), encoding: .utf8)) ?? ""
        let decoded = results.split(separator: "\n").compactMap { try? JSONDecoder().decode(ScenarioResult.self, from: Data($0.utf8)) }
        run.exitStatus = exit?.status ?? -1
        run.scenarios = decoded.count
        run.passed = decoded.filter { $0.status == .pass }.count
        run.wallSeconds = BenchFormat.round(wall, 2)
        run.scenariosPerSecond = BenchFormat.round(Double(decoded.count) / wall, 1)
        run.runnerPeakRSSMegabytes = BenchFormat.round(Double(exit?.maxRSSKilobytes ?? 0) / 1024, 1)
        run.treePeakRSSMegabytes = treePeak > 0 ? BenchFormat.round(Double(treePeak) / 1024, 1) : nil
        run.scenarioSecondsSum = BenchFormat.round(decoded.map(\.seconds).reduce(0, +), 1)
        run.slowest = decoded.sorted { $0.seconds > $1.seconds }.prefix(5)
            .map { Slowest(scenario: $0.scenario, seconds: BenchFormat.round($0.seconds, 2)) }
        if decoded.isEmpty, run.error == nil {
            let stderr = (try? String(contentsOf: work.appendingPathComponent("stderr.txt"), encoding: .utf8)) ?? ""
            run.error = "no results (exit \(run.exitStatus)): \(stderr.suffix(400))"
        }
        return run
    }
}
