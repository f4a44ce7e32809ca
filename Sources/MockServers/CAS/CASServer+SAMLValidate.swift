import Foundation
import SAMLCore

/// Apereo CAS `/samlValidate`: the CAS 3 SAML 1.1 validation. The client POSTs a SOAP 1.1
/// envelope carrying `samlp:Request/samlp:AssertionArtifact` (the service ticket) with the
/// service as the `TARGET` query parameter; the answer is a SOAP envelope around a SAML 1.1
/// `Response` (status `saml1p:Success` and an assertion with the user's attributes in the
/// `http://www.ja-sig.org/products/cas/` namespace, or `saml1p:RequestDenied` with the CAS
/// error text as `StatusMessage`). Unsigned (Apereo signs only when configured to).
extension CASServer {
    static let saml1Protocol = "urn:oasis:names:tc:SAML:1.0:protocol"
    static let saml1Assertion = "urn:oasis:names:tc:SAML:1.0:assertion"
    static let soap11 = "http://schemas.xmlsoap.org/soap/envelope/"
    static let casAttributeNamespace = "http://www.ja-sig.org/products/cas/"

    func samlValidate(_ request: MockRequest) -> MockResponse {
        guard request.method == "POST" else { return .methodNotAllowed(request.method, allowed: ["POST"]) }
        let service = request.queryValue("TARGET") ?? ""
        var artifact = ""
        var requestID: String?
        // Untrusted XML: SAMLCore's hardened parser (no DTDs, no external entities, bounded).
        var unreadable: CASFailure?
        do {
            let document = try XMLDocument(parsing: request.body)
            let samlRequest = document.root.descendants("Request", Self.saml1Protocol).first
            requestID = samlRequest?.attribute("RequestID")
            artifact = (samlRequest?.descendants("AssertionArtifact", Self.saml1Protocol).first?.text ?? "")
                .trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            // Say why the body was not read (a DOCTYPE, invalid UTF-8, 10,000-deep nesting…)
            // instead of answering as if the artifact were merely missing.
            unreadable = CASFailure(code: .invalidRequest, description: "The samlValidate body is not a SOAP message this server reads: \(error)")
                .with(detail: "unreadable-body")
        }
        let outcome: Result<CASAssertion, CASFailure> = if let unreadable { .failure(unreadable) } else if artifact.isEmpty || service.isEmpty {
            .failure(CASFailure.missingParameters.with(detail: artifact.isEmpty ? "no-assertion-artifact" : "no-target"))
        } else {
            validateTicket(artifact, service: service, renew: false, allowProxyTickets: false)
        }
        let body = samlResponse(outcome, service: service, inResponseTo: requestID)
        return annotate(.xml(body, contentType: "text/xml;charset=UTF-8"), outcome: outcome, ticket: artifact, service: service, version: .cas3)
            .annotated("cas.saml", "1.1")
    }

    /// The SOAP envelope and SAML 1.1 Response (saml-core-1.1 §3.4 and §2.3, as Apereo's
    /// `Saml10SuccessResponseView` / `Saml10FailureResponseView` write them through OpenSAML,
    /// with its `saml1p`/`saml1` prefixes).
    func samlResponse(_ outcome: Result<CASAssertion, CASFailure>, service: String, inResponseTo: String?) -> String {
        let now = environment.clock.now()
        let instant = SAMLDateTime.string(from: now, precision: .milliseconds)
        var w = XMLWriter()
        w.open("SOAP-ENV:Envelope", ["xmlns:SOAP-ENV": Self.soap11])
        w.empty("SOAP-ENV:Header")
        w.open("SOAP-ENV:Body")
        w.open("saml1p:Response", [
            "xmlns:saml1p": Self.saml1Protocol, "InResponseTo": inResponseTo, "IssueInstant": instant,
            "MajorVersion": "1", "MinorVersion": "1", "Recipient": service.isEmpty ? nil : service,
            "ResponseID": "_" + environment.ids.next().drop { $0 == "_" },
        ])
        w.open("saml1p:Status")
        switch outcome {
        case .failure(let failure):
            w.empty("saml1p:StatusCode", ["Value": "saml1p:RequestDenied"])
            w.element("saml1p:StatusMessage", text: failure.description.isEmpty ? failure.code.rawValue : failure.description)
            w.close("saml1p:Status")
        case .success(let assertion):
            w.empty("saml1p:StatusCode", ["Value": "saml1p:Success"])
            w.close("saml1p:Status")
            writeAssertion(&w, assertion, service: service, now: now)
        }
        w.close("saml1p:Response")
        w.close("SOAP-ENV:Body")
        w.close("SOAP-ENV:Envelope")
        return w.output
    }

    private func writeAssertion(_ w: inout XMLWriter, _ assertion: CASAssertion, service: String, now: Date) {
        let instant = SAMLDateTime.string(from: now, precision: .milliseconds)
        let user = assertion.user
        w.open("saml1:Assertion", [
            "xmlns:saml1": Self.saml1Assertion, "AssertionID": "_" + environment.ids.next().drop { $0 == "_" },
            "IssueInstant": instant, "Issuer": settings.samlIssuer, "MajorVersion": "1", "MinorVersion": "1",
        ])
        w.open("saml1:Conditions", [
            "NotBefore": instant,
            "NotOnOrAfter": SAMLDateTime.string(from: now.addingTimeInterval(settings.samlIssueLength), precision: .milliseconds),
        ])
        w.open("saml1:AudienceRestrictionCondition")
        w.element("saml1:Audience", text: service)
        w.close("saml1:AudienceRestrictionCondition")
        w.close("saml1:Conditions")
        let attributes = attributesWithheld ? [] : CASServiceResponse.attributes(for: assertion)
        if !attributes.isEmpty {
            w.open("saml1:AttributeStatement")
            writeSubject(&w, user.username)
            for (name, values) in attributes {
                w.open("saml1:Attribute", ["AttributeName": name, "AttributeNamespace": Self.casAttributeNamespace])
                for value in values { w.element("saml1:AttributeValue", text: value) }
                w.close("saml1:Attribute")
            }
            w.close("saml1:AttributeStatement")
        }
        w.open("saml1:AuthenticationStatement", [
            "AuthenticationInstant": SAMLDateTime.string(from: assertion.ticket.authentication.instant, precision: .milliseconds),
            "AuthenticationMethod": "urn:oasis:names:tc:SAML:1.0:am:password",
        ])
        writeSubject(&w, user.username)
        w.close("saml1:AuthenticationStatement")
        w.close("saml1:Assertion")
    }

    private func writeSubject(_ w: inout XMLWriter, _ name: String) {
        w.open("saml1:Subject")
        w.element("saml1:NameIdentifier", text: name)
        w.open("saml1:SubjectConfirmation")
        w.element("saml1:ConfirmationMethod", text: "urn:oasis:names:tc:SAML:1.0:cm:artifact")
        w.close("saml1:SubjectConfirmation")
        w.close("saml1:Subject")
    }
}
