import Foundation

/// What a client under test writes to `SAMLH_RESULT_FILE`: its claim (`outcome`), the error it
/// reports, and the payload it obtained (`resource`). The runner never takes the claim as the
/// verdict: success means the truth the mocks know appears in `resource`.
public struct ClientReport: Codable, Sendable, Equatable {
    public var outcome: String?
    public var error: String?
    public var resource: String?
    public var details: [String: String]?

    public init(outcome: String? = nil, error: String? = nil, resource: String? = nil, details: [String: String]? = nil) {
        self.outcome = outcome
        self.error = error
        self.resource = resource
        self.details = details
    }

    enum CodingKeys: String, CodingKey { case outcome, error, resource, details }

    /// `details` is "anything you like" (docs/running-clients.md): a string stays a string;
    /// a number, boolean, array or object is kept as its JSON text, so a client that writes
    /// `{"exit": 0}` loses nothing (its `validates_saml` still reads `"true"` from `true`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        outcome = try container.decodeIfPresent(String.self, forKey: .outcome)
        error = try container.decodeIfPresent(String.self, forKey: .error)
        resource = try container.decodeIfPresent(String.self, forKey: .resource)
        details = try container.decodeIfPresent([String: DetailValue].self, forKey: .details)?.mapValues(\.text)
    }

    /// One value of `details`, as text.
    struct DetailValue: Decodable {
        let text: String

        init(from decoder: any Decoder) throws {
            let single = try decoder.singleValueContainer()
            if let string = try? single.decode(String.self) { text = string; return }
            if let bool = try? single.decode(Bool.self) { text = bool ? "true" : "false"; return }
            if let integer = try? single.decode(Int64.self) { text = String(integer); return }
            if let number = try? single.decode(Double.self) { text = String(number); return }
            if single.decodeNil() { text = ""; return }
            let any = try single.decode(JSONText.self)
            text = any.text
        }
    }

    /// An array or object value, re-serialised.
    struct JSONText: Decodable {
        let text: String

        init(from decoder: any Decoder) throws {
            if var array = try? decoder.unkeyedContainer() {
                var parts: [String] = []
                while !array.isAtEnd { parts.append(try array.decode(DetailValue.self).text) }
                text = "[" + parts.joined(separator: ", ") + "]"
            } else {
                let object = try decoder.container(keyedBy: AnyKey.self)
                text = "{" + object.allKeys.sorted { $0.stringValue < $1.stringValue }
                    .map { "\($0.stringValue): \((try? object.decode(DetailValue.self, forKey: $0).text) ?? "")" }
                    .joined(separator: ", ") + "}"
            }
        }
    }

    struct AnyKey: CodingKey {
        let stringValue: String
        var intValue: Int? { nil }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    /// The largest result file read.
    public static let maxBytes = 16 * 1024 * 1024

    /// Reads the result file; nil and a reason when it is missing or not the expected JSON.
    public static func read(_ url: URL) -> (ClientReport?, String?) {
        guard let handle = try? FileHandle(forReadingFrom: url) else {
            return (nil, "the client wrote no result file (\(url.lastPathComponent))")
        }
        defer { try? handle.close() }
        let data = (try? handle.read(upToCount: maxBytes + 1)) ?? Data()
        guard data.count <= maxBytes else { return (nil, "the result file is larger than \(maxBytes) bytes") }
        guard !data.isEmpty else { return (nil, "the result file is empty") }
        do {
            return (try JSONDecoder().decode(ClientReport.self, from: data), nil)
        } catch DecodingError.dataCorrupted(let context) {
            return (nil, "the result file is not JSON: \(context.underlyingError.map { "\($0)" } ?? context.debugDescription)")
        } catch {
            return (nil, "the result file does not match {outcome, error, resource, details}: \(error)")
        }
    }
}

/// What running the client for one scenario gave: its exit, output, report, and what went wrong
/// on the harness's side of it (could not start, timed out, no result file).
public struct ClientExecution: Sendable, Equatable {
    public var status: Int32?
    public var timedOut: Bool
    public var stdout: String
    public var stderr: String
    public var report: ClientReport?
    /// Why the report is missing or unreadable.
    public var reportProblem: String?
    public var launchError: String?
    public var seconds: Double
    /// When the client ended (its process exited, its in-process run returned); nil when
    /// unknown (a session by hand).
    public var ended: Date?
    /// Why the runner stopped it before its timeout (it flooded the mocks…).
    public var stopped: String?
    /// Driven by hand (`serve --scenario --verdicts-out`): there is no client report; the
    /// expectation is judged from what the mocks served.
    public var byHand = false
    /// The signal that ended the client's process, when one did.
    public var signal: Int32?
    /// Why the client could not start — a setup mistake, not a verdict (``ClientEnding/startFailure(status:stderr:command:)``).
    public var startFailure: String?

    /// A session driven by hand, ended after `seconds`.
    public static func byHand(seconds: Double) -> ClientExecution {
        var execution = ClientExecution(status: nil, timedOut: false, report: nil, seconds: seconds)
        execution.byHand = true
        return execution
    }

    /// What an in-process client did (``AuthClient``, ``ConformanceSession/judge(report:)``):
    /// its report, status 1 when the report's outcome is `failure` and 0 otherwise.
    public static func inProcess(_ report: ClientReport, seconds: Double, ended: Date = Date()) -> ClientExecution {
        let failed = report.outcome?.lowercased() == "failure"
        var execution = ClientExecution(status: failed ? 1 : 0, timedOut: false, report: report, seconds: seconds)
        execution.ended = ended
        return execution
    }

    public init(status: Int32?, timedOut: Bool, stdout: String = "", stderr: String = "", report: ClientReport?,
                reportProblem: String? = nil, launchError: String? = nil, seconds: Double, stopped: String? = nil) {
        self.stopped = stopped
        self.status = status
        self.timedOut = timedOut
        self.stdout = stdout
        self.stderr = stderr
        self.report = report
        self.reportProblem = reportProblem
        self.launchError = launchError
        self.seconds = seconds
    }

    /// Whether the client says it succeeded (exit 0, and its report does not say otherwise).
    public var claimsSuccess: Bool {
        status == 0 && !timedOut && (report?.outcome.map { $0.lowercased() == "success" } ?? true)
    }

    /// How the client crashed, when it did: a signal (one the runner did not send), or an
    /// unhandled exception's trace and no result file. Nil for a client that exited and
    /// reported (``ClientEnding/crash(_:)``).
    public var crash: String? { ClientEnding.crash(self) }

    /// Everything the client said about an error: the report's error, then stderr and stdout.
    public var errorText: String {
        [report?.error ?? "", stderr, stdout].joined(separator: "\n")
    }
}
