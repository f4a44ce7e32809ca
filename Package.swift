// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "SAMLHarness",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "SAMLCore", targets: ["SAMLCore"]),
        .executable(name: "samlharness", targets: ["samlharness"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    ],
    targets: [
        // libxml2 + libxmlsec1 (OpenSSL backend) + zlib. The -D flags pkg-config prints are
        // dropped by SwiftPM, so shim.h defines them itself (see ../shared/NOTES-xmlsec.md).
        .systemLibrary(
            name: "CXMLSec",
            pkgConfig: "xmlsec1-openssl",
            providers: [.apt(["libxml2-dev", "libxmlsec1-dev", "zlib1g-dev"])]
        ),
        .target(
            name: "SAMLCore",
            dependencies: ["CXMLSec"]
        ),
        .executableTarget(
            name: "samlharness",
            dependencies: [
                "SAMLCore",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        .testTarget(
            name: "SAMLCoreTests",
            dependencies: ["SAMLCore"],
            resources: [.copy("Fixtures")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
