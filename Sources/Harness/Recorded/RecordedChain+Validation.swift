import Foundation

extension RecordedChain {
    /// The most origins a chain may have. A replay opens a loopback listener for each origin
    /// (about 80 KB apiece), so a chain of thousands — 3,002 in a 207 KB file, issue 36 — would
    /// take hundreds of megabytes and as many ports. A recorded login crosses a handful (the
    /// recordings in Scenarios/ and Tests/ have 2 or 3: SP, IdP, a discovery service).
    public static let maxOrigins = 64

    /// Why the chain cannot be replayed for its number of origins (the count and the cap), or
    /// nil. Checked when a scenario is loaded, when a recording is imported and before a replay.
    public var tooManyOrigins: String? {
        guard origins.count > Self.maxOrigins else { return nil }
        return "\(origins.count) origins, more than the \(Self.maxOrigins) a replay allows (each origin is a loopback "
            + "listener of its own); a recorded login crosses a handful of sites: record it with `--allow-host` for those only"
    }

    /// What a schema cannot check: no more than ``maxOrigins`` origins, every template parses,
    /// every placeholder names a variable or a message, every entry's origin and every
    /// binding's entry exist. Empty when the chain can be replayed. Each problem names the
    /// entry, message or variable.
    public func problems() -> [String] {
        var problems: [String] = []
        if let tooManyOrigins { problems.append(tooManyOrigins) }
        if entries.isEmpty { problems.append("`entries` is empty: there is nothing to replay") }
        let originNames = origins.map(\.name)
        if Set(originNames).count != originNames.count { problems.append("two origins have the same name") }
        if Set(origins.map(\.url)).count != origins.count { problems.append("two origins have the same url") }
        for origin in origins where RecordedURL(origin.url) == nil {
            problems.append("origin \(origin.name): `\(origin.url)` is not an http(s) origin")
        }
        let variableNames = Set(variables.map(\.name))
        let messageNames = Set(messages.map(\.name))
        let numbers = Set(entries.map(\.number))
        func check(_ template: String, _ place: String) {
            do {
                for segment in try ReplayTemplate.parse(template) {
                    guard case .placeholder(let placeholder) = segment else { continue }
                    if let message = placeholder.messageName {
                        if !messageNames.contains(message) { problems.append("\(place): no message `\(message)`") }
                        if placeholder.filter != nil, ![.redirect, .base64, .inline].contains(placeholder.filter) {
                            problems.append("\(place): a message takes the filter `redirect`, `base64` or `inline`")
                        }
                    } else if !variableNames.contains(placeholder.name) {
                        problems.append("\(place): no variable `\(placeholder.name)`")
                    }
                }
            } catch {
                problems.append("\(place): \(error)")
            }
        }
        if let startURL { check(startURL, "start_url") }
        for entry in entries {
            if !originNames.contains(entry.origin) { problems.append("entry \(entry.number): no origin "
                + "`\(entry.origin)`") }
            for header in entry.response.headers { check(header.value, "entry \(entry.number) header \(header.name)") }
            if entry.response.bodyBase64 == true {
                if let body = entry.response.body, Data(base64Encoded: body) == nil {
                    problems.append("entry \(entry.number): body_base64 is set but the body is not base64")
                }
            } else if let body = entry.response.body {
                check(body, "entry \(entry.number) body")
            }
            if let carried = entry.request.carries, !messageNames.contains(carried) {
                problems.append("entry \(entry.number): carries an unknown message `\(carried)`")
            }
        }
        if Set(entries.map(\.number)).count != entries.count { problems.append("two entries have the same number") }
        for message in messages {
            check(message.xml, "message \(message.name)")
            if let relay = message.relayState { check(relay, "message \(message.name) relay_state") }
        }
        for variable in variables {
            for binding in variable.bind ?? [] where !numbers.contains(binding.entry) {
                problems.append("variable \(variable.name): binds from entry \(binding.entry), which does not exist")
            }
            if variable.kind == .time, variable.offset == nil {
                problems.append("variable \(variable.name): a `time` variable needs an `offset`")
            }
        }
        return problems
    }
}
