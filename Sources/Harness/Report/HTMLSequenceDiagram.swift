import Foundation

/// A scenario's exchanges as an inline SVG sequence diagram: a lifeline for the client and
/// one for each mock that answered (proxy, SP, circulation manager, HTTP-auth server, IdP,
/// CAS, AD FS), a solid arrow per request and a dashed one per answer. Each exchange is a
/// link to its details below the diagram; a step that failing evidence names is drawn red
/// (class `failing`) with the check ids beside it. The runner's control calls are left out.
enum HTMLSequenceDiagram {
    /// Lifelines in the order a login crosses them.
    static let order = ["client", "proxy", "sp", "cm", "auth", "idp", "cas", "adfs"]
    static let names = ["client": "client", "proxy": "proxy", "sp": "SP", "cm": "circulation manager",
                        "auth": "HTTP auth", "idp": "IdP", "cas": "CAS", "adfs": "AD FS"]
    /// More arrows than this are listed below the diagram, not drawn.
    static let maxSteps = 150

    static let column = 150.0
    static let margin = 70.0
    static let rowHeight = 46.0
    static let top = 56.0
    static let noteWidth = 270.0

    static func render(scenarioAnchor: String, exchanges: [TraceExchange], failing: [Int: [Verdict]]) -> String {
        let steps = exchanges.filter { $0.mock != "control" }
        guard !steps.isEmpty else { return "<p class=\"muted\">No exchange reached the mocks.</p>" }
        let mocks = Set(steps.map(\.mock))
        let lanes = ["client"] + order.dropFirst().filter(mocks.contains) + mocks.subtracting(order).sorted()
        let x = Dictionary(lanes.enumerated().map { ($1, margin + Double($0) * column) }, uniquingKeysWith: { a, _ in a })
        let drawn = Array(steps.prefix(maxSteps))
        let width = margin * 2 + Double(lanes.count - 1) * column + noteWidth
        let height = top + Double(drawn.count) * rowHeight + 30
        var svg: [String] = []
        svg.append("<svg class=\"sequence\" xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" "
                   + "viewBox=\"0 0 \(Int(width)) \(Int(height))\" role=\"img\" aria-label=\"sequence diagram\">")
        svg.append("<defs><marker id=\"\(scenarioAnchor)-arrow\" viewBox=\"0 0 10 10\" refX=\"9\" refY=\"5\" markerWidth=\"7\" markerHeight=\"7\" orient=\"auto-start-reverse\"><path d=\"M0,0 L10,5 L0,10 z\" class=\"head\"/></marker></defs>")
        for lane in lanes {
            let lx = x[lane] ?? margin
            svg.append("<g class=\"lane\"><rect x=\"\(f(lx - 55))\" y=\"8\" width=\"110\" height=\"26\" rx=\"5\"/>"
                       + "<text x=\"\(f(lx))\" y=\"25\" text-anchor=\"middle\">\(ReportText.html(names[lane] ?? lane))</text>"
                       + "<line x1=\"\(f(lx))\" y1=\"34\" x2=\"\(f(lx))\" y2=\"\(f(height - 8))\"/></g>")
        }
        let notesX = margin + Double(lanes.count - 1) * column + 30
        for (row, exchange) in drawn.enumerated() {
            let y = top + Double(row) * rowHeight
            let from = x["client"] ?? margin
            let to = x[exchange.mock] ?? margin
            let verdicts = failing[exchange.sequence] ?? []
            let classes = verdicts.isEmpty ? "step" : "step failing"
            let marker = "url(#\(scenarioAnchor)-arrow)"
            let handshake = exchange.tlsOutcome
            let label = handshake == nil ? "#\(exchange.sequence) \(exchange.request.method) \(shortPath(exchange.request.url))"
                : "#\(exchange.sequence) TLS handshake, no request"
            let answer = exchange.response.map { "\($0.status) \(statusNote($0))" } ?? handshake ?? "no answer"
            let left = min(from, to), right = max(from, to)
            var group = "<a class=\"\(classes)\" href=\"#\(scenarioAnchor)-x\(exchange.sequence)\" "
                + "data-exchange=\"\(exchange.sequence)\">"
            group += "<title>\(ReportText.html(label + " → " + answer))</title>"
            group += "<rect class=\"hit\" x=\"\(f(left - 4))\" y=\"\(f(y - 16))\" width=\"\(f(right - left + 8))\" height=\"\(f(rowHeight - 6))\"/>"
            group += "<text class=\"label\" x=\"\(f(left + 8))\" y=\"\(f(y - 4))\">\(ReportText.html(label))</text>"
            group += "<line class=\"request\" x1=\"\(f(from))\" y1=\"\(f(y))\" x2=\"\(f(to))\" y2=\"\(f(y))\" marker-end=\"\(marker)\"/>"
            if exchange.response != nil {
                group += "<line class=\"response\" x1=\"\(f(to))\" y1=\"\(f(y + 14))\" x2=\"\(f(from))\" y2=\"\(f(y + 14))\" marker-end=\"\(marker)\"/>"
                group += "<text class=\"status\" x=\"\(f(left + 8))\" y=\"\(f(y + 26))\">\(ReportText.html(answer))</text>"
            } else {
                group += "<text class=\"status noanswer\" x=\"\(f(to + 8))\" y=\"\(f(y + 14))\">✕ \(ReportText.html(handshake ?? "no answer"))</text>"
            }
            if !verdicts.isEmpty {
                let note = "✗ " + verdicts.map(\.check).joined(separator: ", ")
                group += "<text class=\"note\" x=\"\(f(notesX))\" y=\"\(f(y + 4))\">\(ReportText.html(String(note.prefix(44))))</text>"
            }
            svg.append(group + "</a>")
        }
        svg.append("</svg>")
        var html = "<div class=\"diagram\">" + svg.joined(separator: "\n") + "</div>"
        if steps.count > drawn.count {
            html += "<p class=\"muted\">\(steps.count - drawn.count) more exchanges are not drawn; they are listed below.</p>"
        }
        return html
    }

    /// `/idp/profile/SAML2/Redirect/SSO?…` cut to fit an arrow.
    static func shortPath(_ url: String) -> String {
        var path = url
        if let scheme = url.range(of: "://") {
            let rest = url[scheme.upperBound...]
            path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? "/"
        }
        if let q = path.firstIndex(of: "?") { path = String(path[..<q]) + "?…" }
        return path.count > 34 ? String(path.prefix(33)) + "…" : path
    }

    static func statusNote(_ response: TraceResponse) -> String {
        if let location = response.headers.first(where: { $0.name.lowercased() == "location" })?.value {
            return "→ " + shortPath(location)
        }
        if let type = response.headers.first(where: { $0.name.lowercased() == "content-type" })?.value {
            return String(type.prefix { $0 != ";" })
        }
        return ""
    }

    static func f(_ value: Double) -> String { String(format: "%.0f", value) }
}
