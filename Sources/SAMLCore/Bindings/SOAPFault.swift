/// A SOAP 1.1 fault (SOAP 1.1 §4.4), as the SAML SOAP binding returns one when it cannot
/// process a request at all (saml-bindings-2.0-os §3.2.3.3).
///
/// ```swift
/// let xml = SOAPFault(code: .client, string: "bad request").envelope()
/// ```
public struct SOAPFault: Sendable, Equatable {
    /// SOAP 1.1 §4.4.1 fault codes (`SOAP-ENV:` qualified).
    public enum Code: String, Sendable {
        case versionMismatch = "VersionMismatch"
        case mustUnderstand = "MustUnderstand"
        case client = "Client"
        case server = "Server"
    }

    /// The `faultcode` text as written (a QName, e.g. `SOAP-ENV:Client`).
    public let faultCode: String
    /// The `faultstring` text.
    public let faultString: String
    /// The `faultactor`, if any.
    public let faultActor: String?
    /// The text of `detail`, if any.
    public let detail: String?

    public init(code: Code, string: String, actor: String? = nil, detail: String? = nil) {
        self.init(faultCode: "\(SOAPBinding.prefix):\(code.rawValue)", faultString: string, faultActor: actor, detail: detail)
    }

    public init(faultCode: String, faultString: String, faultActor: String? = nil, detail: String? = nil) {
        self.faultCode = faultCode
        self.faultString = faultString
        self.faultActor = faultActor
        self.detail = detail
    }

    init(parsing element: XMLElement) {
        // SOAP 1.1 §4.4: faultcode, faultstring, faultactor and detail are unqualified.
        func child(_ name: String) -> String? {
            element.children.first { $0.localName == name && $0.namespaceURI == nil }?.text
        }
        self.init(faultCode: child("faultcode")?.trimmed ?? "", faultString: child("faultstring") ?? "",
                  faultActor: child("faultactor"), detail: child("detail"))
    }

    /// The code with its prefix dropped (`Client` for `SOAP-ENV:Client`), if it is a known one.
    public var code: Code? {
        let local = faultCode.split(separator: ":").last.map(String.init) ?? faultCode
        return Code(rawValue: local.split(separator: ".").first.map(String.init) ?? local)
    }

    /// The `SOAP-ENV:Fault` element.
    public func xml() -> String {
        var w = XMLWriter()
        w.open("\(SOAPBinding.prefix):Fault")
        w.element("faultcode", text: faultCode)
        w.element("faultstring", text: faultString)
        if let faultActor { w.element("faultactor", text: faultActor) }
        if let detail { w.element("detail", text: detail) }
        w.close("\(SOAPBinding.prefix):Fault")
        return w.output
    }

    /// A whole envelope carrying the fault.
    public func envelope() -> String {
        SOAPBinding.envelope(body: xml())
    }
}

extension String {
    var trimmed: String {
        String(drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
            .reversed().drop { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }.reversed())
    }
}
