import Foundation
import MockServers
import SAMLCore

/// The replayed SP's Assertion Consumer Service: the SAMLResponse a client posts is checked
/// the way a careful SP checks it before the recorded success answer is replayed.
extension ReplayEngine {
    /// Nil when the posted Response is accepted; otherwise the 403 to send. Annotates
    /// `replay.acs` (`valid`/`invalid`), `replay.acs.code`, `replay.acs.intact` (the bytes are
    /// the ones served), `replay.acs.in-response-to`.
    func checkACS(_ request: MockRequest, message: RecordedChain.Message, chain: RecordedChain, state: State,
                  annotations: inout [String: String]) -> MockResponse? {
        let bytes: [UInt8]
        let served = state.served[message.name]
        var intact: Bool
        if message.binding == .soap {
            // ECP (saml-profiles-2.0-os §4.2.4.5): the Response in the PAOS response's SOAP body.
            let envelope: SOAPEnvelope
            do {
                envelope = try SOAPBinding.parse(request.body)
            } catch {
                return refuse(.responseMalformed, "the PAOS response is not a SOAP envelope: \(error)", &annotations)
            }
            guard envelope.bodyName == "Response" else {
                return refuse(.responseMalformed, "the SOAP body holds \(envelope.bodyName), not a Response", &annotations)
            }
            bytes = envelope.body
            // Intact: the XML served is in the body as served (the envelope's serialization of
            // the element may differ from the bytes; the text served may not).
            let servedText = served.map { SOAPBinding.withoutXMLDeclaration(String(decoding: $0, as: UTF8.self)) }
            intact = servedText.map { request.bodyText.contains($0) } ?? false
        } else {
            guard let value = request.formValue("SAMLResponse") else {
                return refuse(.responseMalformed, "the form has no SAMLResponse field", &annotations)
            }
            // saml-bindings-2.0-os §3.5.4: plain base64. Strictly: a `+` the client left unencoded
            // arrives as a space and is not silently repaired here (a real SP would fail on it too).
            do {
                bytes = try SAMLBase64.decode(value)
            } catch {
                let deviation = (try? LenientBase64.decode(value))?.codes.first
                annotations["replay.acs.deviation"] = deviation ?? "base64.invalid"
                annotations["replay.acs.intact"] = "false"
                return refuse(.encodingInvalid, "the SAMLResponse is not valid base64 as posted: \(error)", &annotations)
            }
            intact = served == bytes
        }
        annotations["replay.acs.intact"] = served == nil ? "not-served" : String(intact)
        guard chain.resign else {
            // Served as recorded: only the recorded bytes carry a signature that verifies.
            if intact || served == nil { return accept(&annotations) }
            return refuse(.signatureInvalid, "the posted SAMLResponse differs from the one served "
                + "(\(bytes.count) bytes posted, \(served?.count ?? 0) served); its recorded signature no longer "
                + "covers it", &annotations)
        }
        let reference = (try? XMLDocument(parsing: served ?? bytes)).map { document -> (String?, String?, String?) in
            let root = document.root
            return (root.firstChild("Issuer", SAMLNamespace.assertion)?.text,
                    root.descendants("Audience", SAMLNamespace.assertion).first?.text,
                    root.attribute("InResponseTo"))
        }
        let acsURL = request.origin + request.path
        let configuration = SPValidator.Configuration(
            idpEntityID: reference?.0 ?? "", idpKeys: [keys.idpCertificate.publicKey],
            spEntityID: reference?.1 ?? "", acsURL: acsURL, requestID: reference?.2,
            allowUnsolicited: reference?.2 == nil, clock: clock)
        switch SPValidator(configuration: configuration).validate(bytes) {
        case .success(let assertion):
            annotations["replay.acs.nameid"] = assertion.nameID.value
            if let inResponseTo = reference?.2 { annotations["replay.acs.in-response-to"] = inResponseTo }
            return accept(&annotations)
        case .failure(let failure):
            return refuse(failure.code, failure.explanation, &annotations)
        }
    }

    private func accept(_ annotations: inout [String: String]) -> MockResponse? {
        annotations["replay.acs"] = "valid"
        return nil
    }

    private func refuse(_ code: ValidationFailure.Code, _ explanation: String,
                        _ annotations: inout [String: String]) -> MockResponse {
        annotations["replay.acs"] = "invalid"
        annotations["replay.acs.code"] = code.rawValue
        return .errorPage(status: 403, title: "Forbidden",
                          message: "The replayed SP refused the SAMLResponse: \(code.rawValue): \(explanation)")
    }
}
