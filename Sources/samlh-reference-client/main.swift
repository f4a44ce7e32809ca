// The reference client as a standalone executable: reads the runner's SAMLH_* environment,
// runs the flow, writes SAMLH_RESULT_FILE, exits 0 (success), 1 (failure) or 2 (usage).
import Foundation
import ReferenceClient

let environment = ProcessInfo.processInfo.environment
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

// Linux URLSession ignores connectionProxyDictionary; libcurl underneath reads http_proxy.
// Set it for this process only, before the first request (see docs/reference-client.md).
#if !canImport(Darwin)
if configuration.flow == .proxy, let proxy = configuration.parameters["PROXY_URL"] {
    setenv("http_proxy", proxy, 1)
    unsetenv("no_proxy")
    unsetenv("NO_PROXY")
}
#endif

let result = await ReferenceClient(configuration: configuration).run()
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
