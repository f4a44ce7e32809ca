import Foundation
import MockServers

extension RecordingProxy {
    /// The recording as HAR 1.2: every recorded exchange in order of arrival, request and
    /// response headers as they crossed the proxy, full bodies (base64 when not UTF-8),
    /// `timings` send (reading the request) / wait (to the answer's head) / receive (its body),
    /// `connection` the client's TCP connection, `serverIPAddress` the upstream's address, the
    /// `record.*` annotations in `_annotations`.
    public func har(version: String) -> HAR {
        var document = log.har(creatorVersion: version)
        document.log.creator.name = "samlharness record"
        let entries = log.entries
        for index in document.log.entries.indices where index < entries.count {
            let notes = entries[index].annotations
            var entry = document.log.entries[index]
            entry.serverIPAddress = notes[Key.upstreamIP]
            if let receive = notes[Key.receiveMS].flatMap(Double.init) {
                entry.timings.receive = receive
                entry.time = entry.timings.send + entry.timings.wait + receive
            }
            entry._mock = nil
            entry._run = nil
            document.log.entries[index] = entry
        }
        return document
    }

    /// ``har(version:)`` as pretty-printed JSON.
    public func harJSON(version: String) throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        return try encoder.encode(har(version: version))
    }
}
