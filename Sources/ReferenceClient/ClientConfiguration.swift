import Foundation

/// What one run of the client needs: the flow, where it starts, the credentials and the
/// flow's own endpoints. Usually read from the runner's `SAMLH_*` environment variables.
public struct ClientConfiguration: Sendable, Equatable {
    /// The flows the runner knows (`SAMLH_FLOW`).
    public enum Flow: String, Sendable, CaseIterable {
        case webSSO = "web-sso"
        case webSSOIdPInitiated = "web-sso-idp-initiated"
        case ecp
        case httpBasic = "http-basic"
        case httpDigest = "http-digest"
        case httpNTLM = "http-ntlm"
        case proxy
        case casREST = "cas-rest"
        case casBrowser = "cas-browser"
        case adfsWSTrust = "adfs-wstrust"
        case adfsPassive = "adfs-passive"
        case opdsSAML = "opds-saml"
        case replay
    }

    /// A configuration problem (exit code 2).
    public struct UsageError: Error, CustomStringConvertible, Sendable {
        /// What is missing or wrong.
        public var description: String
    }

    public var flow: Flow
    public var startURL: URL
    public var username: String?
    public var password: String?
    public var secondFactorCode: String?
    /// Where to write the result (`SAMLH_RESULT_FILE`); nil: not written.
    public var resultFile: String?
    /// Seconds for the whole scenario (`SAMLH_TIMEOUT`, default 30).
    public var timeout: Double
    /// Seconds to wait for one answer (`SAMLH_REQUEST_TIMEOUT`); nil: half the time left,
    /// between 1 and 10 s.
    public var requestTimeout: Double?
    /// The flow parameters without the `SAMLH_` prefix (`IDP_ECP_URL`, `CAS_SERVICE`…).
    public var parameters: [String: String]

    /// Creates a configuration directly (in-process use).
    public init(flow: Flow, startURL: URL, username: String? = nil, password: String? = nil,
                secondFactorCode: String? = nil, resultFile: String? = nil, timeout: Double = 30,
                requestTimeout: Double? = nil, parameters: [String: String] = [:]) {
        self.flow = flow
        self.startURL = startURL
        self.username = username
        self.password = password
        self.secondFactorCode = secondFactorCode
        self.resultFile = resultFile
        self.timeout = timeout
        self.requestTimeout = requestTimeout
        self.parameters = parameters
    }

    /// Reads `SAMLH_FLOW`, `SAMLH_START_URL`, `SAMLH_USERNAME`, `SAMLH_PASSWORD`,
    /// `SAMLH_SECOND_FACTOR_CODE`, `SAMLH_RESULT_FILE`, `SAMLH_TIMEOUT`, `SAMLH_REQUEST_TIMEOUT` and every other
    /// `SAMLH_K` as parameter `K`.
    ///
    /// ```swift
    /// let configuration = try ClientConfiguration.fromEnvironment(ProcessInfo.processInfo.environment)
    /// ```
    public static func fromEnvironment(_ environment: [String: String]) throws -> ClientConfiguration {
        guard let flowName = environment["SAMLH_FLOW"], !flowName.isEmpty else {
            throw UsageError(description: "SAMLH_FLOW is not set (one of \(Flow.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        guard let flow = Flow(rawValue: flowName) else {
            throw UsageError(description: "SAMLH_FLOW=\(flowName) is not a known flow")
        }
        let start = environment["SAMLH_START_URL"] ?? ""
        guard let url = URL(string: start), let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https" else {
            throw UsageError(description: "SAMLH_START_URL is not an http(s) URL: '\(start)'")
        }
        var timeout = 30.0
        if let text = environment["SAMLH_TIMEOUT"] {
            guard let value = Double(text), value > 0 else {
                throw UsageError(description: "SAMLH_TIMEOUT is not a positive number of seconds: '\(text)'")
            }
            timeout = value
        }
        var requestTimeout: Double?
        if let text = environment["SAMLH_REQUEST_TIMEOUT"] {
            guard let value = Double(text), value > 0 else {
                throw UsageError(description: "SAMLH_REQUEST_TIMEOUT is not a positive number of seconds: '\(text)'")
            }
            requestTimeout = value
        }
        let own: Set<String> = ["FLOW", "START_URL", "USERNAME", "PASSWORD", "SECOND_FACTOR_CODE", "RESULT_FILE", "TIMEOUT",
                                "REQUEST_TIMEOUT"]
        var parameters: [String: String] = [:]
        for (key, value) in environment where key.hasPrefix("SAMLH_") {
            let name = String(key.dropFirst("SAMLH_".count))
            if !own.contains(name) { parameters[name] = value }
        }
        return ClientConfiguration(
            flow: flow, startURL: url, username: environment["SAMLH_USERNAME"], password: environment["SAMLH_PASSWORD"],
            secondFactorCode: environment["SAMLH_SECOND_FACTOR_CODE"].flatMap { $0.isEmpty ? nil : $0 },
            resultFile: environment["SAMLH_RESULT_FILE"], timeout: timeout, requestTimeout: requestTimeout,
            parameters: parameters)
    }

    /// A parameter, or a usage error naming the variable.
    func required(_ name: String) throws -> String {
        guard let value = parameters[name], !value.isEmpty else {
            throw ClientFailure("SAMLH_\(name) is not set (needed by flow \(flow.rawValue))")
        }
        return value
    }

    /// A parameter that must be an http(s) URL.
    func requiredURL(_ name: String) throws -> URL {
        let text = try required(name)
        guard let url = URL(string: text), url.scheme == "http" || url.scheme == "https" else {
            throw ClientFailure("SAMLH_\(name) is not an http(s) URL: '\(text)'")
        }
        return url
    }
}
