/// Why an XML input was refused or could not be processed.
public struct XMLError: Error, Equatable, CustomStringConvertible, Sendable {
    public enum Reason: String, Sendable {
        /// The document has a `<!DOCTYPE …>`: refused before its internal subset is read.
        case doctypeRefused = "xml.doctype-refused"
        /// More bytes than the configured limit.
        case tooLarge = "xml.too-large"
        /// Not well-formed (libxml2's message, with line and column).
        case notWellFormed = "xml.not-well-formed"
        /// Elements nested deeper than the limit.
        case tooDeep = "xml.too-deep"
        /// Empty input.
        case empty = "xml.empty"
        /// The native library failed.
        case library = "xml.library"
        /// An element that had to be there was not.
        case missingElement = "xml.missing-element"
        /// A value that had to have a particular form did not.
        case invalidValue = "xml.invalid-value"
    }

    public let reason: Reason
    public let message: String
    public let line: Int?
    public let column: Int?

    public init(_ reason: Reason, _ message: String, line: Int? = nil, column: Int? = nil) {
        self.reason = reason
        self.message = message
        self.line = line
        self.column = column
    }

    public var description: String {
        var where_ = ""
        if let line {
            where_ = " at line \(line)"
            if let column, column > 0 { where_ += ", column \(column)" }
        }
        return "\(reason.rawValue): \(message)\(where_)"
    }
}
