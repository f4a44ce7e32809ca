import Foundation
import MockServers

extension ScenarioTrace {
    /// The trace of a scenario's traffic log: every exchange in order, bodies capped, SAML
    /// messages decoded. `secrets` (the user's password, the second-factor code) stay in
    /// memory for ``SecretMasker``; nothing is masked yet. Built off the cooperative thread
    /// pool (it decodes and pretty-prints every SAML message), like the verdicts.
    public static func build(from entries: [TrafficEntry], secrets: [String?]) async -> ScenarioTrace {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(returning: make(from: entries, secrets: secrets))
            }
        }
    }

    /// ``build(from:secrets:)`` on the calling thread.
    public static func make(from entries: [TrafficEntry], secrets: [String?]) -> ScenarioTrace {
        let origin = entries.map(\.started).min() ?? Date()
        let exchanges = entries.sorted { $0.sequence < $1.sequence }.map { entry in
            TraceExchange(
                sequence: entry.sequence, mock: entry.mock,
                atMilliseconds: Int((entry.started.timeIntervalSince(origin) * 1000).rounded()),
                waitMilliseconds: Int((entry.waitDuration * 1000).rounded()),
                request: TraceRequest(method: entry.request.method, url: MessageTraffic.destination(entry),
                                      headers: entry.request.headers.map { TraceHeader($0.name, $0.value) },
                                      body: TraceBody(entry.request.body)),
                response: entry.response.map { response in
                    TraceResponse(status: response.status, headers: response.headers.map { TraceHeader($0.name, $0.value) },
                                  body: TraceBody(response.body))
                },
                annotations: entry.annotations.isEmpty ? nil : entry.annotations,
                messages: entry.mock == "control" ? nil : {
                    let found = TraceMessageDecoder.messages(in: entry)
                    return found.isEmpty ? nil : found
                }())
        }
        return ScenarioTrace(exchanges: exchanges, masked: false, secrets: secrets.compactMap { $0 })
    }
}
