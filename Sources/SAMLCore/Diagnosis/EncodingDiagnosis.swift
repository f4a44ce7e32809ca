/// What ``EncodingDiagnoser`` found about an arriving value.
public struct EncodingDiagnosis: Sendable, Equatable {
    /// The findings, most fundamental first; empty when the value is exactly what the
    /// binding prescribes (and, when given, identical to the expected original).
    public let findings: [EncodingFinding]
    /// The message as best recovered (lenient decoding, inflated when compressed), if any.
    public let recoveredXML: [UInt8]?

    /// The finding codes, in order.
    public var codes: [String] { findings.map(\.code) }

    /// True when nothing is wrong.
    public var isClean: Bool { findings.isEmpty }

    /// The first finding with this code.
    public func finding(_ code: String) -> EncodingFinding? { findings.first { $0.code == code } }

    /// One line per finding, for a terminal.
    public var report: String {
        findings.isEmpty ? "encoding: ok" : findings.map(\.description).joined(separator: "\n")
    }
}
