import Foundation

/// The recorded redirect chain of a `replay` scenario (`replay:` in the YAML).
/// Placeholder shape; the recorded-chain work defines it fully.
public struct RecordedChain: Codable, Sendable, Equatable {
    public init() {}
}
