import Foundation
import MockServers
import SAMLCore

/// Answers requests from a recorded chain: matches each request to a recorded entry, binds
/// the values the client sent, checks a posted SAMLResponse (the ACS), and renders the
/// recorded answer with fresh values. One engine serves every listener of a session.
final class ReplayEngine: Sendable {
    struct State {
        /// Entries already answered.
        var consumed: Set<Int> = []
        /// Current variable values (generated or bound).
        var values: [String: String] = [:]
        /// The XML bytes of each message as last served.
        var served: [String: [UInt8]] = [:]
        /// Cookies the replay set (name → value), to see whether the client sends them back.
        var cookiesSet: [String: String] = [:]
    }

    /// The chain as loaded (origins as recorded).
    let chain: RecordedChain
    let keys: ReplayKeys
    let cookieIndex: ReplayMatcher.CookieIndex
    let clock: any SAMLClock
    let ids: any IDGenerator
    /// What the recorded waits are multiplied by (`--time-scale`), when the chain replays them.
    let timeScale: Double
    private let state = LockedValue(State())
    /// The chain with origins rewritten to the listeners (set once they are bound).
    private let localized = LockedValue<(chain: RecordedChain, rewriter: OriginRewriter)?>(nil)

    init(chain: RecordedChain, keys: ReplayKeys, clock: any SAMLClock, ids: any IDGenerator, timeScale: Double = 1) {
        self.chain = chain
        self.keys = keys
        self.cookieIndex = ReplayMatcher.CookieIndex(chain)
        self.clock = clock
        self.ids = ids
        self.timeScale = timeScale
    }

    /// Rewrites every template's recorded origins once the listeners' ports are known.
    func prepare(originMap: [String: String]) {
        let rewriter = OriginRewriter(map: originMap)
        var copy = chain
        for index in copy.entries.indices {
            for header in copy.entries[index].response.headers.indices {
                copy.entries[index].response.headers[header].value =
                    rewriter.rewriteTemplate(copy.entries[index].response.headers[header].value)
            }
            if copy.entries[index].response.bodyBase64 != true, let body = copy.entries[index].response.body {
                copy.entries[index].response.body = rewriter.rewriteTemplate(body)
            }
            if let values = copy.entries[index].request.values {
                copy.entries[index].request.values = values.mapValues(rewriter.rewriteTemplate)
            }
        }
        for index in copy.messages.indices {
            // A message served byte for byte keeps its recorded URLs: its signature covers them.
            let verbatim = (copy.messages[index].responseSigned == true || copy.messages[index].assertionSigned == true)
                && !copy.resign
            if !verbatim { copy.messages[index].xml = rewriter.rewriteTemplate(copy.messages[index].xml) }
            copy.messages[index].relayState = copy.messages[index].relayState.map(rewriter.rewriteTemplate)
        }
        copy.startURL = copy.startURL.map(rewriter.rewriteTemplate)
        localized.withLock { $0 = (copy, rewriter) }
    }

    /// The chain with its origins rewritten to the listeners (the recorded one before `prepare`).
    var localizedChain: RecordedChain { localized.withLock { $0?.chain } ?? chain }

    /// A recorded URL template rendered for this session (`start_url`).
    func localize(_ template: String) -> String {
        guard let (_, rewriter) = localized.withLock({ $0 }) else { return template }
        let rewritten = rewriter.rewriteTemplate(template)
        return state.withLock { state in
            (try? ReplayTemplate.render(rewritten) { try self.resolve($0, state: &state, now: self.clock.now()) }) ?? rewritten
        }
    }

    func reset() {
        state.withLock { $0 = State() }
    }

    // MARK: - Answering

    func handle(_ request: MockRequest, origin: String) -> MockResponse {
        guard let (local, _) = localized.withLock({ $0 }) else {
            return .errorPage(status: 503, title: "Service Unavailable", message: "The replay is starting.")
        }
        if request.path == ReplaySession.certificatePath {
            return MockResponse.text(keys.idpCertificate.pem, contentType: "application/x-pem-file")
                .annotated("replay.certificate", "idp")
        }
        return state.withLock { state -> MockResponse in
            let known = state.values
            let (best, candidates) = ReplayMatcher.match(
                request, origin: origin, in: local, cookieIndex: cookieIndex, consumed: state.consumed,
                value: { Self.knownValue($0, values: known) }, cookiesSet: state.cookiesSet)
            guard let best else {
                return ReplayMatcher.unmatched(request, origin: origin, in: local, candidates: candidates)
            }
            let entry = best.entry
            state.consumed.insert(entry.number)
            var annotations = ["replay.entry": String(entry.number), "replay.origin": origin,
                               "replay.match": best.exact ? "exact" : "near",
                               "replay.score": "\(best.score)/\(best.maximum)"]
            if best.strictness != .default { annotations["replay.strictness"] = best.strictness.rawValue }
            if !best.differences.isEmpty {
                annotations["replay.differences"] = best.differences.map(\.text).joined(separator: "; ")
            }
            if let outcome = Self.recordedLoginOutcome(entry, request: request) {
                // The recorded server's verdict on a password post, named as the mock IdP names
                // it, so the login checks (flow.bad-password-bounded…) count replayed attempts.
                annotations["idp.login"] = outcome
            }
            bind(request, entry: entry, state: &state, annotations: &annotations)
            checkCookies(request, entry: entry, state: state, annotations: &annotations)
            if let carried = entry.request.carries, let message = local.message(named: carried),
               message.kind == .response, entry.request.method == "POST" {
                if let refusal = checkACS(request, message: message, chain: local, state: state, annotations: &annotations) {
                    var answer = refusal
                    for (key, value) in annotations { answer.annotations[key] = value }
                    return answer
                }
            }
            var answer: MockResponse
            do {
                answer = try render(entry.response, chain: local, state: &state)
            } catch {
                answer = .errorPage(status: 500, title: "Replay error",
                                    message: "entry \(entry.number) cannot be rendered: \(error)")
                annotations["replay.error"] = "\(error)"
            }
            for (key, value) in annotations { answer.annotations[key] = value }
            if chain.delays == true, let wait = entry.response.waitMilliseconds, wait > 0 {
                answer.delivery = .delayed(.milliseconds(Int((Double(wait) * timeScale).rounded())))
                answer.annotations["replay.delay-ms"] = String(Int((Double(wait) * timeScale).rounded()))
            }
            return answer
        }
    }

    /// For a form post of a password: `bad-password` when the recorded answer showed a login
    /// form again (a password field, no redirect), else `ok`; nil for other requests.
    static func recordedLoginOutcome(_ entry: RecordedChain.Entry, request: MockRequest) -> String? {
        guard request.method == "POST", (entry.request.form ?? []).contains(where: ImportBuilder.isPasswordField) else {
            return nil
        }
        return RecordedScenarioWriter.showsLoginForm(entry.response) ? "bad-password" : "ok"
    }

    /// A recorded value template rendered with the values the replay holds now; nil when it
    /// names a variable without one yet (or a message, or a time), so it cannot be compared.
    static func knownValue(_ template: String, values: [String: String]) -> String? {
        guard let segments = try? ReplayTemplate.parse(template) else { return nil }
        var out = ""
        for segment in segments {
            switch segment {
            case .literal(let text): out += text
            case .placeholder(let placeholder):
                guard placeholder.messageName == nil, let value = values[placeholder.name] else { return nil }
                out += ReplayTemplate.encode(value, placeholder.filter)
            }
        }
        return out
    }

    /// Takes each bound variable's value from the request, where the chain says.
    private func bind(_ request: MockRequest, entry: RecordedChain.Entry, state: inout State,
                      annotations: inout [String: String]) {
        for variable in chain.variables {
            for binding in variable.bind ?? [] where binding.entry == entry.number {
                let value: String? = switch binding.from {
                case .query: request.queryValue(binding.key)
                case .form: request.formValue(binding.key)
                case .cookie: request.cookie(binding.key)
                case .header: request.header(binding.key)
                case .samlRequestID: Self.samlRequestID(in: request)
                }
                if let value, !value.isEmpty {
                    state.values[variable.name] = value
                    annotations["replay.bound.\(variable.name)"] = value
                } else {
                    annotations["replay.unbound.\(variable.name)"] = "\(binding.from.rawValue):\(binding.key) missing"
                }
            }
        }
    }

    /// The `ID` of the SAMLRequest in the request's query (HTTP-Redirect) or form (HTTP-POST).
    static func samlRequestID(in request: MockRequest) -> String? {
        var xml: [UInt8]?
        if request.queryValue("SAMLRequest") != nil {
            xml = try? RedirectBinding.decode(request.target).xml
        } else if let value = request.formValue("SAMLRequest") {
            xml = try? PostBinding.decode(value, kind: .request).xml
        } else if ImportBuilder.looksLikeSOAP(request.bodyText), let envelope = try? SOAPBinding.parse(request.body),
                  envelope.bodyName == "AuthnRequest" {
            xml = envelope.body
        }
        guard let xml, let document = try? XMLDocument(parsing: xml) else { return nil }
        return document.root.attribute("ID")
    }

    /// Notes whether the client sent back the cookies the replay set that the recorded
    /// browser sent here (`replay.cookies-missing`, `replay.cookies-changed`).
    private func checkCookies(_ request: MockRequest, entry: RecordedChain.Entry, state: State,
                              annotations: inout [String: String]) {
        var missing: [String] = []
        var changed: [String] = []
        for name in entry.request.cookies ?? [] {
            guard let expected = state.cookiesSet[name] else { continue }
            guard let sent = request.cookie(name) else { missing.append(name); continue }
            if sent != expected { changed.append(name) }
        }
        if !missing.isEmpty { annotations["replay.cookies-missing"] = missing.joined(separator: ",") }
        if !changed.isEmpty { annotations["replay.cookies-changed"] = changed.joined(separator: ",") }
    }
}
