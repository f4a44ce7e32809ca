/// The envelope an IdP returns to an ECP client (SAML 2.0 profiles §4.2.4.4,
/// saml-ecp-v2.0-cs01 §2.3.4): header block `ecp:Response AssertionConsumerServiceURL`, body
/// the `samlp:Response`, embedded byte for byte.
///
/// The client must compare ``assertionConsumerServiceURL`` with the SP's
/// `paos:Request responseConsumerURL` before forwarding the Response (profiles §4.2.4.5) —
/// ``matches(_:)`` does that comparison.
public struct ECPResponse: Sendable, Equatable {
    /// `ecp:Response AssertionConsumerServiceURL`.
    public var assertionConsumerServiceURL: String
    /// The Response: serialized XML text when building, the body's bytes when parsed.
    public var response: String

    public init(assertionConsumerServiceURL: String, response: String) {
        self.assertionConsumerServiceURL = assertionConsumerServiceURL
        self.response = response
    }

    /// The SOAP envelope.
    public func envelope() -> String {
        let p = SOAPBinding.prefix
        var w = XMLWriter()
        w.empty("ecp:Response", [
            "xmlns:ecp": SAMLNamespace.ecp,
            "\(p):mustUnderstand": "1",
            "\(p):actor": SOAPBinding.nextActor,
            "AssertionConsumerServiceURL": assertionConsumerServiceURL,
        ])
        return SOAPBinding.envelope(body: response, headerBlocks: [w.output])
    }

    /// Parses the IdP's envelope. A SOAP fault in the body is thrown as
    /// ``BindingError/Reason/invalidEnvelope`` naming the fault code and string.
    public static func parse(_ bytes: [UInt8], limits: XMLParsingLimits = .default) throws -> ECPResponse {
        let envelope = try SOAPBinding.parse(bytes, limits: limits)
        if let fault = envelope.fault {
            throw BindingError(.invalidEnvelope, "the IdP answered a SOAP fault: \(fault.faultCode): \(fault.faultString)")
        }
        guard let block = envelope.headerBlock("Response", SAMLNamespace.ecp) else {
            throw BindingError(.invalidEnvelope, "no ecp:Response header block ({\(SAMLNamespace.ecp)}Response)")
        }
        try PAOSRequest.requireNextActor(block, "ecp:Response")
        guard let acs = block.attributes["AssertionConsumerServiceURL"], !acs.isEmpty else {
            throw BindingError(.invalidEnvelope, "ecp:Response has no AssertionConsumerServiceURL")
        }
        guard envelope.bodyName == "Response", envelope.bodyNamespace == SAMLNamespace.protocol_ else {
            throw BindingError(.invalidEnvelope,
                               "the body holds {\(envelope.bodyNamespace ?? "")}\(envelope.bodyName), not a samlp:Response")
        }
        return ECPResponse(assertionConsumerServiceURL: acs, response: String(decoding: envelope.body, as: UTF8.self))
    }

    /// True when the IdP's ACS URL is exactly the SP's `responseConsumerURL` (SAML 2.0 profiles
    /// §4.2.4.5: on mismatch the client must not forward the Response, but send a SOAP fault).
    public func matches(_ request: PAOSRequest) -> Bool {
        assertionConsumerServiceURL == request.responseConsumerURL
    }
}
