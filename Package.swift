// swift-tools-version:6.1
import PackageDescription

// Trait `Kerberos`: the mocks accept Kerberos inside Negotiate through MIT Kerberos's GSS-API
// (CGSSAPI). On by default on Linux, where libkrb5-dev puts its headers on the default paths;
// off by default elsewhere, so that macOS builds without MIT's headers (Apple's GSS framework has
// no gssapi_ext.h): `swift build --traits Kerberos` with Homebrew's krb5 (docs/macos.md). Without
// it the Kerberos scenarios are skipped and a Kerberos ticket is refused, saying why.
#if os(Linux)
let defaultTraits: Set<String> = ["Kerberos"]
#else
let defaultTraits: Set<String> = []
#endif

// Homebrew's krb5 is keg-only: its pkg-config file names the include directory. On Debian,
// krb5-gssapi's cflags add an -isystem SwiftPM refuses with a warning, and the headers and the
// library are on the default paths: no pkg-config there.
#if os(macOS)
let gssapiPkgConfig: String? = "krb5-gssapi"
#else
let gssapiPkgConfig: String? = nil
#endif

let package = Package(
    name: "SAMLHarness",
    // macOS 15: Synchronization's Mutex (SAMLCore, MockServers, Harness; Hummingbird 2 alone
    // needs 14). iOS 16: the ReferenceClient library alone (URL.path(percentEncoded:),
    // NSLocking.withLock); the mocks, SAMLCore (libxmlsec1) and the harness do not run on iOS —
    // an app on a device or simulator logs in against `samlharness serve` on the host
    // (docs/devices.md).
    platforms: [.macOS(.v15), .iOS(.v16)],
    products: [
        .library(name: "SAMLCore", targets: ["SAMLCore"]),
        .library(name: "MockServers", targets: ["MockServers"]),
        .library(name: "Harness", targets: ["Harness"]),
        .library(name: "ReferenceClient", targets: ["ReferenceClient"]),
        .executable(name: "samlharness", targets: ["samlharness"]),
        .executable(name: "samlh-reference-client", targets: ["samlh-reference-client"]),
    ],
    traits: [
        .trait(name: "Kerberos",
               description: "Kerberos inside Negotiate in the mocks, through MIT Kerberos's GSS-API (Debian libkrb5-dev, Homebrew krb5)."),
        .default(enabledTraits: defaultTraits),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/swift-mustache", from: "2.1.1"),
        .package(url: "https://github.com/jpsim/Yams", from: "6.2.2"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/async-http-client", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-certificates", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-crypto", from: "4.5.2"),
    ],
    targets: [
        // libxml2 + libxmlsec1 (OpenSSL backend) + zlib. The -D flags pkg-config prints are
        // dropped by SwiftPM, so shim.h defines them itself (see ../shared/NOTES-xmlsec.md).
        .systemLibrary(
            name: "CXMLSec",
            pkgConfig: "xmlsec1-openssl",
            providers: [.apt(["libxml2-dev", "libxmlsec1-dev", "zlib1g-dev"]), .brew(["libxmlsec1", "libxml2", "openssl@3"])]
        ),
        .target(
            name: "SAMLCore",
            dependencies: ["CXMLSec"]
        ),
        // HTTP mocks on Hummingbird 2: SAML IdP + SP, ECP, HTTP auth challenges, proxy,
        // the traffic log. Never imports the harness.
        // MIT Kerberos's GSS-API: the mocks accept Negotiate/Kerberos from a realm's keytab
        // (trait Kerberos, above).
        .systemLibrary(
            name: "CGSSAPI",
            pkgConfig: gssapiPkgConfig,
            providers: [.apt(["libkrb5-dev"]), .brew(["krb5"])]
        ),
        .target(
            name: "MockServers",
            dependencies: [
                "SAMLCore",
                .target(name: "CGSSAPI", condition: .when(traits: ["Kerberos"])),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdCore", package: "hummingbird"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "Mustache", package: "swift-mustache"),
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Scenarios (format, loader, catalog), recorded chains (HAR import, replay), checks,
        // client adapters, the run loop, reports. Reads the mocks; the mocks never import it.
        .target(
            name: "Harness",
            dependencies: [
                "SAMLCore",
                "MockServers",
                .product(name: "Yams", package: "Yams"),
                .product(name: "Logging", package: "swift-log"),
            ],
            resources: [.copy("Resources")]
        ),
        // `samlharness record`: the recording forward proxy (CONNECT with TLS interception by a
        // local recording CA, upstream verified), its HAR. Reads the mocks' traffic types.
        .target(
            name: "Recording",
            dependencies: [
                "SAMLCore",
                "MockServers",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
            ]
        ),
        .executableTarget(
            name: "samlharness",
            dependencies: [
                "SAMLCore",
                "MockServers",
                "Harness",
                "Recording",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ]
        ),
        // The reference auth client: every flow done right on URLSession, Foundation only, so
        // app teams can read it as sample code. No unsafe flags in a library target: a package
        // that pins SAMLHarness by version is refused one ("contains unsafe build flags").
        .target(name: "ReferenceClient"),
        // The executable's transports on SwiftNIO: plain http (NIOHTTPTransport: URLSession on
        // Linux crashed libdispatch under load) and the buggy trust variants' unverified HTTPS
        // (URLSession on Linux cannot skip verification); kept out of ReferenceClient, which
        // stays Foundation-only.
        .target(
            name: "ReferenceClientNIO",
            dependencies: [
                "ReferenceClient",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOTLS", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ]
        ),
        // SAMLCore only for the `ntlm-v1` bug variant's DES; the library stays Foundation-only.
        // The release build (scripts/lib/build.sh: `swift build -c release --static-swift-stdlib`)
        // links the Swift runtime and Foundation statically into both executables: the catalog
        // starts this one once per scenario, and resolving the shared libraries' symbols at every
        // start was 12% of a catalog run's CPU (docs/performance.md, issue 25: 16.5 → 10 ms).
        .executableTarget(name: "samlh-reference-client", dependencies: ["ReferenceClient", "ReferenceClientNIO", "SAMLCore"]),
        // libFuzzer target over SAMLCore's decoders and parser; a corpus replayer in normal
        // builds (docs/fuzzing.md, scripts/fuzz.sh).
        .executableTarget(name: "samlh-fuzz", dependencies: ["SAMLCore"]),
        .testTarget(
            name: "ReferenceClientTests",
            dependencies: ["ReferenceClient", "ReferenceClientNIO", "TestSupport", "MockServers", "SAMLCore"]
        ),
        .testTarget(
            name: "SAMLCoreTests",
            dependencies: ["SAMLCore", "TestSupport"],
            resources: [.copy("Fixtures")]
        ),
        // What the test targets share: the suite fixture, a scripted browser, third-party
        // client processes.
        .target(
            name: "TestSupport",
            dependencies: [
                "Harness",
                "MockServers",
                "SAMLCore",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            path: "Tests/TestSupport"
        ),
        .testTarget(
            name: "MockServersTests",
            dependencies: [
                "Harness",
                "MockServers",
                "SAMLCore",
                "TestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ]
        ),
        // SAMLHarness used as a library, as an app team's `swift test` does: the public API only
        // (no @testable): Conformance.run with an AuthClient of its own, Conformance.session, the
        // version tag a package pins.
        .testTarget(
            name: "HarnessLibraryTests",
            dependencies: ["Harness", "ReferenceClient"]
        ),
        .testTarget(
            name: "HarnessTests",
            dependencies: [
                "Harness",
                "MockServers",
                "SAMLCore",
                "TestSupport",
                "Recording",
                .product(name: "Yams", package: "Yams"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "X509", package: "swift-certificates"),
            ],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
