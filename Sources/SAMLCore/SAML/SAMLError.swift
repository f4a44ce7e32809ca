/// Why a SAML message or metadata document could not be read.
///
/// Every error carries a stable ``Reason`` code (for reports and scripts), the element it is
/// about (as written, `samlp:Response`), the attribute when one is at fault, and the line.
///
/// ```swift
/// do { _ = try Response(xml: text) }
/// catch let error as SAMLError where error.reason == .missingAttribute {
///     print(error.attribute ?? "")   // "IssueInstant"
/// }
/// ```
public struct SAMLError: Error, Equatable, CustomStringConvertible, Sendable {
    /// Stable reason codes.
    public enum Reason: String, Sendable {
        /// The element is not the one expected here (wrong local name or namespace).
        case unexpectedElement = "saml.unexpected-element"
        /// A child element the schema requires is absent.
        case missingElement = "saml.missing-element"
        /// An element that may occur at most once occurs more than once.
        case duplicateElement = "saml.duplicate-element"
        /// A required attribute is absent.
        case missingAttribute = "saml.missing-attribute"
        /// An attribute value has the wrong form (not a boolean, not an integer, unknown enum).
        case invalidAttribute = "saml.invalid-attribute"
        /// An element's text content is empty or has the wrong form.
        case invalidValue = "saml.invalid-value"
        /// A timestamp is not a valid xs:dateTime.
        case invalidDateTime = "saml.invalid-datetime"
        /// `Version` is not `2.0` (saml-core-2.0-os §3.2.2.1 / §4.1.1).
        case unsupportedVersion = "saml.unsupported-version"
    }

    public let reason: Reason
    /// The element the error is about, as written (`saml:Assertion`), when known.
    public let element: String?
    /// The attribute at fault, when the error is about one.
    public let attribute: String?
    /// The line in the parsed input, when known.
    public let line: Int?
    /// What was wrong, for people.
    public let message: String

    public init(_ reason: Reason, _ message: String, element: String? = nil,
                attribute: String? = nil, line: Int? = nil) {
        self.reason = reason
        self.message = message
        self.element = element
        self.attribute = attribute
        self.line = line
    }

    /// The same error, placed at an element and attribute (keeps what is already known).
    func located(element: String, attribute: String?, line: Int?) -> SAMLError {
        SAMLError(reason, message, element: self.element ?? element,
                  attribute: self.attribute ?? attribute, line: self.line ?? line)
    }

    public var description: String {
        var text = "\(reason.rawValue): \(message)"
        if let element {
            text += " (element \(element)"
            if let attribute { text += ", attribute \(attribute)" }
            text += ")"
        }
        if let line { text += " at line \(line)" }
        return text
    }
}
