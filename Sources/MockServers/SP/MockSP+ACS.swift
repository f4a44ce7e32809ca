import Foundation
import SAMLCore

extension MockSP {
    /// The HTTP-POST ACS (saml-profiles-2.0-os §4.1.4.5): decode, find the request the
    /// Response answers (by RelayState, else by InResponseTo), validate, open a session and
    /// send the client back to where it started.
    func assertionConsumer(_ request: MockRequest) throws -> MockResponse {
        guard request.method == "POST" else { return .methodNotAllowed(request.method, allowed: ["POST"]) }
        let rules = try checkedRules(request)
        let message: PostMessage
        do {
            message = try PostBinding.decode(formBody: request.bodyText, mode: rules.strictBase64 ? .strict : .lenient)
        } catch let error as BindingError {
            throw SPError(status: 400, code: Self.reasonCode(error), message: error.message)
        }
        guard message.kind == .response else {
            throw SPError(status: 400, code: "encoding.invalid", message: "The ACS expects SAMLResponse, not SAMLRequest.")
        }
        var response: MockResponse
        do {
            let (pending, unsolicitedTarget) = try matchRequest(xml: message.xml, relayState: message.relayState)
            response = try complete(xml: message.xml, pending: pending, unsolicitedTarget: unsolicitedTarget,
                                    request: request, binding: SAMLBindingURI.httpPost)
        } catch let error as SPError where !message.deviations.isEmpty {
            // The lenient decoder repaired the value: name the damage beside the refusal.
            throw SPError(status: error.status, code: error.code, message: error.message
                + " (the SAMLResponse value was damaged: "
                + message.deviations.map { "\($0.code): \($0.message)" }.joined(separator: "; ") + ")")
        }
        if !message.deviations.isEmpty {
            response.annotations["sp.encoding-deviations"] = message.deviations.map(\.code).joined(separator: " ")
        }
        return response
    }

    /// The PAOS ACS (saml-ecp-v2.0 §2.3.6): the client posts the IdP's samlp:Response in a
    /// SOAP envelope; RelayState comes back in an `ecp:RelayState` header block.
    func ecpConsumer(_ request: MockRequest) throws -> MockResponse {
        guard request.method == "POST" else { return .methodNotAllowed(request.method, allowed: ["POST"]) }
        _ = try checkedRules(request)
        let envelope: SOAPEnvelope
        do {
            envelope = try SOAPBinding.parse(request.body)
        } catch {
            throw SPError(status: 400, code: "ecp.envelope", message: "The PAOS response is not a SOAP 1.1 envelope: \(error)")
        }
        if let fault = envelope.fault {
            // saml-ecp-v2.0 §2.3.5 (saml-profiles-2.0-os §4.2.4.4): an ECP that finds the IdP's
            // AssertionConsumerServiceURL differs from the SP's responseConsumerURL sends a
            // SOAP fault to the SP instead of the Response.
            throw SPError(status: 400, code: "ecp.client-fault",
                          message: "The ECP client sent a SOAP fault instead of a Response: \(fault.faultCode): \(fault.faultString)")
        }
        guard envelope.bodyName == "Response", envelope.bodyNamespace == SAMLNamespace.protocol_ else {
            throw SPError(status: 400, code: "ecp.envelope", message: "The SOAP Body holds \(envelope.bodyName), not a samlp:Response.")
        }
        let relayState = envelope.headerBlock("RelayState", SAMLNamespace.ecp).map {
            (try? XMLDocument(parsing: $0.xml).root.text) ?? ""
        }
        let (pending, target) = try matchRequest(xml: envelope.body, relayState: relayState)
        return try complete(xml: envelope.body, pending: pending, unsolicitedTarget: target, request: request,
                            binding: SAMLBindingURI.paos)
    }

    /// The SP's rules, once the POST is known to fit Apache's LimitRequestBody.
    func checkedRules(_ request: MockRequest) throws -> SPRules {
        let rules = environment.profile.spRules
        guard rules.limitRequestBody == 0 || request.body.count <= rules.limitRequestBody else {
            throw SPError(status: 413, code: "response.oversized",
                          message: "The POST body is \(request.body.count) bytes; this SP reads at most \(rules.limitRequestBody) (Apache LimitRequestBody).")
        }
        return rules
    }

    static func reasonCode(_ error: BindingError) -> String {
        if error.reason == .deviationRefused, let code = error.message.split(separator: ":").first,
           code.contains(".") {
            return String(code)
        }
        return error.reason == .inputTooLarge ? "response.oversized" : "encoding.invalid"
    }

    /// Finds the pending request by its RelayState (`ss:mem:…`), as Shibboleth SP does. When
    /// the RelayState was lost or changed on the way, Shibboleth has no request to correlate
    /// with: it takes the Response as unsolicited and lands on `homeURL`. With the
    /// `requireRelayState` rule the SP looks the request up by InResponseTo and refuses
    /// instead (saml-bindings-2.0-os §3.5.3: the RelayState MUST come back unchanged).
    /// A RelayState that is a URL on the SP is the target of an unsolicited Response.
    func matchRequest(xml: [UInt8], relayState: String?) throws -> (SPPendingRequest?, String?) {
        if let relayState, let pending = state.pending(relayState: relayState) { return (pending, nil) }
        let rules = environment.profile.spRules
        guard rules.requireRelayState else {
            let target = try checkedTarget(relayState, parameter: "RelayState").flatMap { sameOrigin($0) }
            return (nil, target ?? homeURL(rules))
        }
        let inResponseTo = (try? XMLDocument(parsing: xml).root.attribute("InResponseTo")) ?? nil
        if let inResponseTo, let pending = state.pending(requestID: inResponseTo) {
            guard let relayState, !relayState.isEmpty else {
                throw SPError(status: 400, code: "relaystate.missing",
                              message: "The Response answers request \(inResponseTo), sent with RelayState \(pending.relayState), but no RelayState came back (saml-bindings-2.0-os §3.5.3).")
            }
            throw SPError(status: 400, code: "relaystate.unknown",
                          message: "The Response answers request \(inResponseTo), sent with RelayState \(pending.relayState), but RelayState \(relayState) came back.")
        }
        if let relayState, relayState.hasPrefix("ss:mem:") {
            throw SPError(status: 400, code: "relaystate.unknown",
                          message: "RelayState \(relayState) names no request this SP sent (or it was already used).")
        }
        return (nil, try checkedTarget(relayState, parameter: "RelayState").flatMap { sameOrigin($0) } ?? homeURL(rules))
    }

    /// `homeURL`: a path on the SP's origin, or a URL as written.
    func homeURL(_ rules: SPRules) -> String {
        rules.homeURL.hasPrefix("/") ? base + rules.homeURL : rules.homeURL
    }

    /// The IdP whose Response this is, among those the SP trusts: the mock IdP, and the mock
    /// AD FS for IdP-initiated logins (both sign with the profile's IdP key, as in a
    /// federation's metadata aggregate). A Response from anyone else is validated against
    /// the mock IdP, so it is refused as `issuer.mismatch`.
    func trustedIssuer(of xml: [UInt8], solicited: Bool) -> String {
        let idp = environment.idpEntityID
        guard !solicited,
              let root = try? XMLDocument(parsing: xml).root,
              let issuer = root.firstChild("Issuer", SAMLNamespace.assertion)?.text
        else { return idp }
        let adfs = ADFSServer(environment: environment).entityID
        return issuer.trimmingCharacters(in: .whitespacesAndNewlines) == adfs ? adfs : idp
    }

    /// Validates and opens the session.
    func complete(xml: [UInt8], pending: SPPendingRequest?, unsolicitedTarget: String?, request: MockRequest,
                  binding: String) throws -> MockResponse {
        let profile = environment.profile
        let rules = profile.spRules
        let expiredCertificate = environment.knobs.contains(.expiredCertificate)
        let trusted = expiredCertificate ? profile.expiredIdPCertificate : profile.idpCertificate
        // Shibboleth compares Destination and Recipient with the URL the Response arrived at;
        // `requireRequestedACS` holds them to the ACS the request named.
        let acsURL = rules.requireRequestedACS ? (pending?.acsURL ?? base + request.path) : base + request.path
        var configuration = SPValidator.Configuration(
            idpEntityID: trustedIssuer(of: xml, solicited: pending != nil), idpKeys: [trusted.publicKey],
            spEntityID: environment.spEntityID,
            acsURL: acsURL, requestID: pending?.requestID,
            allowUnsolicited: pending == nil, clock: environment.clock, skew: TimeInterval(rules.clockSkew),
            allowSHA1: !rules.excludesSHA1,
            signatureRequirement: rules.requireSignedAssertions ? .assertion : .responseOrAssertion,
            decryptionKeys: [profile.spKey], replayCache: state.replayCache,
            limits: XMLParsingLimits(maxBytes: max(XMLParsingLimits.default.maxBytes, min(request.body.count, 64 << 20))))
        configuration.correlation = .bearerRule(checkCorrelation: rules.checkCorrelation, blockUnsolicited: rules.blockUnsolicited)
        configuration.assertionSelection = rules.singleAssertion ? .exactlyOne : .all
        configuration.messageLifetime = TimeInterval(rules.messageFlowExpires)
        configuration.excludedAlgorithms = Set(rules.excludedAlgorithms)
        let assertion: ValidatedAssertion
        switch SPValidator(configuration: configuration).validate(xml) {
        case .success(let validated): assertion = validated
        case .failure(let failure):
            throw SPError(status: 403, code: failure.code.rawValue, message: failure.description)
        }
        // The SP's own rules, after the signature and protocol checks.
        if rules.checkCertificateValidity, trusted.notAfter < environment.clock.now() {
            throw SPError(status: 403, code: "signature.certificate-expired",
                          message: "The IdP's signing certificate expired on \(SAMLDateTime.string(from: trusted.notAfter)); this SP refuses signatures under an expired certificate (checkCertificateValidity).")
        }
        if rules.requireRequestedNameIDFormat, let requested = pending?.nameIDFormat, requested != NameIDFormat.unspecified,
           let actual = assertion.nameID.format, actual != requested {
            throw SPError(status: 403, code: "nameid.format-mismatch",
                          message: "The request asked for NameID format \(requested); the assertion carries \(actual) (saml-core-2.0-os §3.4.1.1).")
        }
        var attributes: [String: [String]] = [:]
        for attribute in assertion.attributes {
            attributes[AttributeNaming.friendlyName(of: attribute), default: []] += attribute.stringValues
        }
        for required in rules.attributeChecker where attributes[required] == nil {
            throw SPError(status: 403, code: "attribute.missing",
                          message: "The assertion has no `\(required)` attribute, which this SP requires.")
        }
        if let pending { state.consume(pending) }
        let session = SPSession(secret: token("SECRET-"), nameID: assertion.nameID.value, nameIDFormat: assertion.nameID.format,
                                attributes: attributes, identityProvider: assertion.issuer,
                                sessionIndex: assertion.sessionIndex, authnInstant: environment.clock.now(),
                                clientAddress: request.remoteAddress, protocolBinding: binding)
        let key = token("_")
        state.save(session, key: key)
        var target = pending?.target ?? unsolicitedTarget ?? base + Path.secure
        // The SP behind a TLS-terminating proxy that believes it runs on http: it sends the
        // client back over plain http, and its cookie (no Secure flag) goes along.
        let downgrade = environment.knobs.contains(.httpsDowngrade) && target.hasPrefix(base) && base.hasPrefix("https://")
        if downgrade { target = environment.baseURL(of: "sp-plain") + target.dropFirst(base.count) }
        var response = MockResponse.redirect(target)
        if downgrade {
            response.annotations["sp.knob"] = "https-downgrade"
            // The load balancer in front adds HSTS to what it serves over https (RFC 6797
            // §6.1), as such deployments do: the host is a Known HSTS Host from this answer on,
            // and an HSTS client must not load the http:// target (§8.3) — it upgrades it, and
            // the plain listener cannot speak TLS. A client that follows over http ignores it.
            response.addHeader("Strict-Transport-Security", "max-age=31536000")
        }
        response.setCookie(SetCookie(name: sessionCookieName, value: key, path: "/", sameSite: SameSiteDefault.value))
        response.annotations["sp.accepted"] = assertion.nameID.value
        response.annotations["sp.secret"] = session.secret
        if pending == nil { response.annotations["sp.unsolicited"] = "true" }
        if assertion.assertionCount > 1 { response.annotations["sp.assertions"] = String(assertion.assertionCount) }
        if assertion.skippedAssertions > 0 { response.annotations["sp.skipped-assertions"] = String(assertion.skippedAssertions) }
        if target == homeURL(rules), pending == nil { response.annotations["sp.landing"] = "homeURL" }
        return response
    }
}

enum SameSiteDefault {
    /// Shibboleth SP 3 sets `SameSite=None` only with https; on plain http it leaves it out.
    static let value: SetCookie.SameSite? = nil
}
