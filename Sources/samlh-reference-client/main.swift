// The reference client as a standalone executable: reads the runner's SAMLH_* environment,
// runs the flow, writes SAMLH_RESULT_FILE, exits 0 (success), 1 (failure) or 2 (usage).
import Foundation
import ReferenceClient
import ReferenceClientNIO
import SAMLCore

let environment = ProcessInfo.processInfo.environment

// A buggy variant for the harness's own tests: `--variant NAME` or SAMLH_REFERENCE_VARIANT.
var behaviour = ClientBehaviour.correct
let arguments = CommandLine.arguments.dropFirst()
let variantName = arguments.first { $0.hasPrefix("--variant=") }.map { String($0.dropFirst("--variant=".count)) }
    ?? arguments.firstIndex(of: "--variant").flatMap { arguments.index(after: $0) < arguments.endIndex ? arguments[arguments.index(after: $0)] : nil }
    ?? environment["SAMLH_REFERENCE_VARIANT"]
if let variantName, !variantName.isEmpty {
    guard let variant = ClientBehaviour.variant(named: variantName) else {
        let names = ClientBehaviour.variants.map(\.name).joined(separator: ", ")
        FileHandle.standardError.write(Data("samlh-reference-client: usage error: no variant `\(variantName)`; variants: \(names)\n".utf8))
        exit(2)
    }
    behaviour = variant
    if variantName == "ntlm-v1" {
        // The bug needs DES, which the Foundation-only library does not carry: SAMLCore's
        // (MS-NLMP §6 DESL over the NT hash).
        behaviour.ntlmV1Response = NTLMv1Computation(name: "DESL") { ntHash, challenge in NTLMCrypto.desl(key: ntHash, data: challenge) }
    }
}

let configuration: ClientConfiguration
do {
    configuration = try ClientConfiguration.fromEnvironment(environment)
} catch {
    FileHandle.standardError.write(Data("samlh-reference-client: usage error: \(error)\n".utf8))
    if let path = environment["SAMLH_RESULT_FILE"], !path.isEmpty {
        try? ClientResult(outcome: .failure, error: "usage: \(error)").write(to: path)
    }
    exit(2)
}

// Plain-http requests go over SwiftNIO, not URLSession (docs/reference-client.md: URLSession on
// Linux let a connection reset under load crash libdispatch); https, the proxy flow and a
// process started with a proxy for plain http (`http_proxy`, `all_proxy`: recording through
// `samlharness record`) stay on URLSession, whose libcurl honours those variables (why:
// NIOHTTPTransport).
let proxyVariables = ["http_proxy", "all_proxy", "ALL_PROXY"].filter { !(environment[$0] ?? "").isEmpty }
let transport = configuration.flow == .proxy || !proxyVariables.isEmpty ? nil : NIOHTTPTransport()

// Linux URLSession ignores connectionProxyDictionary; libcurl underneath reads http_proxy.
// Set it for this process only, before the first request (see docs/reference-client.md).
#if !canImport(Darwin)
if configuration.flow == .proxy, let proxy = configuration.parameters["PROXY_URL"] {
    setenv("http_proxy", proxy, 1)
    unsetenv("no_proxy")
    unsetenv("NO_PROXY")
}
#endif

// Only the buggy trust variants get a transport that skips certificate verification.
let unverified = behaviour.serverTrust == .system ? nil : NIOUnverifiedTLSTransport()
let result = await ReferenceClient(configuration: configuration, behaviour: behaviour, unverifiedTLS: unverified,
                                   transport: transport).run()
await unverified?.shutdown()
await transport?.shutdown()
if let path = configuration.resultFile, !path.isEmpty {
    do {
        try result.write(to: path)
    } catch {
        FileHandle.standardError.write(Data("samlh-reference-client: cannot write \(path): \(error)\n".utf8))
        exit(2)
    }
}
let line = result.outcome == .success ? "success" : "failure: \(result.error)"
FileHandle.standardError.write(Data("samlh-reference-client: \(configuration.flow.rawValue): \(line)\n".utf8))
exit(result.exitCode)
