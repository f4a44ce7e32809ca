// swift-tools-version:5.9
// A standalone package: `swift build` in this folder. No dependencies: Foundation's URLSession
// (FoundationNetworking on Linux).
import PackageDescription

let package = Package(
    name: "URLSessionClient",
    targets: [.executableTarget(name: "URLSessionClient")]
)
