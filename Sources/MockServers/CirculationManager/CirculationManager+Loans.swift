import Foundation
import SAMLCore

/// Bearer-protected circulation: loans, borrow, fulfil, and the fulfilment chains.
extension CirculationManager {
    /// The patron a request's `Authorization: Bearer …` names, verified strictly on every
    /// request: the JWT's HS256 MAC, its `exp` against the mocks' clock, then the credential
    /// it names (unknown or revoked → the same `credentials-invalid` the real one sends when
    /// `Credential.lookup_by_token` finds nothing). No header at all → 401 with the
    /// authentication document (`authenticate()`).
    func authenticatedPatron(_ request: MockRequest) throws -> CMCredential {
        guard let header = request.header("Authorization"), !header.isEmpty else {
            throw CMAnswer(response: authenticationRequired())
        }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].caseInsensitiveCompare("Bearer") == .orderedSame else {
            throw rejected(.malformed, "The Authorization header is not `Bearer <token>`.")
        }
        let now = environment.clock.now()
        let token: CMBearerToken
        do {
            token = try CMBearerToken.verify(String(parts[1]).trimmingCharacters(in: .whitespaces), secret: tokenSecret, now: now)
        } catch {
            let why: String = switch error {
            case .malformed: "The bearer token is not a JWT this circulation manager issued."
            case .algorithm: "The bearer token's alg is not HS256."
            case .signature: "The bearer token's signature does not verify (tampered or forged)."
            case .expired: "The bearer token expired (its exp is past)."
            default: "The bearer token was refused."
            }
            throw rejected(error, why)
        }
        guard let credential = state.credential(token.credentialID) else {
            throw rejected(.unknown, "The bearer token names no credential this circulation manager holds.")
        }
        guard credential.expires > now else {
            throw rejected(.revoked, "The credential behind the bearer token expired at \(SAMLDateTime.string(from: credential.expires)).")
        }
        return credential
    }

    func rejected(_ reason: CMBearerToken.Rejection, _ explanation: String) -> CMAnswer {
        let response = CMProblem.invalidCredentials.response(mediaType: problemMediaType)
            .annotated("cm.token-rejected", reason.rawValue).annotated("cm.explanation", explanation)
        return CMAnswer(response: response)
    }

    /// `/loans`: the patron's active loans, each with its fulfil link.
    func loans(_ request: MockRequest) throws -> MockResponse {
        let credential = try authenticatedPatron(request)
        let entries = state.loans(of: credential.patron, at: environment.clock.now()).compactMap { loan in
            CMBook.find(loan.workID).map { entry($0, loan: loan) }
        }
        return MockResponse.xml(feed(id: base + Path.loans, title: "Active loans and holds", entries: entries),
                                contentType: Self.acquisitionFeedType).annotated("cm.patron", credential.patron)
    }

    /// `GET|PUT /works/{id}/borrow` (`LoanController.borrow`, routed for both methods): the
    /// loan entry, 201 for a new loan, 200 for one the patron already has. Sets
    /// `cm_loan_{id}`, which the fulfilment chain wants back.
    func borrow(_ request: MockRequest, workID: String) throws -> MockResponse {
        let credential = try authenticatedPatron(request)
        guard let book = CMBook.find(workID) else {
            throw CMProblem.noLicenses.detailed("The item you're asking about (\(workID)) isn't in this collection.")
        }
        let now = environment.clock.now()
        let (loan, isNew) = state.borrow(patron: credential.patron, workID: book.id, key: token("loan-"), start: now,
                                         end: now.addingTimeInterval(settings.loanLifetime))
        var response = MockResponse.xml("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n" + entry(book, loan: loan, standalone: true),
                                        contentType: Self.entryType)
        response.status = isNew ? 201 : 200
        response.setCookie(SetCookie(name: Self.loanCookie(book.id), value: loan.key, path: "/"))
        response = response.annotated("cm.patron", credential.patron).annotated("cm.borrowed", book.id)
        if cmKnobs.contains(.expireAfterBorrow), state.revokeOnceAfterBorrow(credential.id, now: now) {
            response = response.annotated("cm.token-revoked", credential.id)
        }
        return response
    }

    /// `GET /works/{id}/fulfill/{mechanism}`: the book (`cm-fulfill=direct`), or the first hop
    /// of a chain to it (`redirect`: cookies only; `reverify`: through the IdP again).
    func fulfil(_ request: MockRequest, workID: String, mechanism: String) throws -> MockResponse {
        let credential = try authenticatedPatron(request)
        guard let book = CMBook.find(workID) else {
            throw CMProblem.noLicenses.detailed("The item you're asking about (\(workID)) isn't in this collection.")
        }
        guard mechanism == book.format.mechanism else {
            throw CMProblem.badDeliveryMechanism.detailed(
                "Delivery mechanism \(mechanism) is not one of this book's (\(book.format.mechanism): \(book.format.mediaType)).",
                code: "mechanism.unknown")
        }
        guard state.loan(of: credential.patron, workID: book.id, at: environment.clock.now()) != nil else {
            throw CMProblem.noActiveLoan
        }
        let mode = fulfilMode
        if mode == .direct { return bookResponse(book, patron: credential.patron) }
        let fulfilment = CMFulfilment(ticket: token("ful-"), patron: credential.patron, workID: book.id,
                                      idpEntityID: credential.idpEntityID, cookieValue: token("dl-"), verified: mode == .redirect)
        state.addFulfilment(fulfilment)
        return MockResponse.redirect(base + Path.delivery + fulfilment.ticket)
            .annotated("cm.patron", credential.patron).annotated("cm.fulfil", mode.rawValue)
    }

    /// `/delivery/{ticket}`: sets the delivery cookie, then goes to the download — or, for
    /// `reverify`, first to the IdP with ForceAuthn (saml-core-2.0-os §3.4.1: the IdP must
    /// authenticate the presenter directly), which asks for the password again.
    func deliveryStart(_ request: MockRequest, ticket: String) throws -> MockResponse {
        guard let fulfilment = state.fulfilment(ticket) else {
            throw CMProblem.cannotFulfill.detailed("No fulfilment \(ticket) is under way (unknown or already delivered).",
                                                   code: "fulfil.unknown-ticket")
        }
        let download = base + Path.delivery + ticket + "/download"
        var response: MockResponse
        if fulfilment.verified {
            response = MockResponse.redirect(download)
        } else {
            guard let idp = identityProviders.first(where: { $0.entityID == fulfilment.idpEntityID }) else {
                throw CMProblem.cannotFulfill.detailed("The IdP \(fulfilment.idpEntityID) is no longer configured.",
                                                       code: "fulfil.unknown-idp")
            }
            let relayState = Self.addingQuery(download, [
                (Self.relayLibrary, settings.libraryShortName), (Self.relayProvider, Self.providerName),
                (Self.relayIdP, idp.entityID),
            ])
            response = try sendAuthnRequest(to: idp, relayState: relayState, purpose: .reverify(ticket: ticket), forceAuthn: true)
                .annotated("cm.sso", "reverify")
        }
        response.setCookie(SetCookie(name: Self.deliveryCookie, value: fulfilment.cookieValue, path: Path.delivery + ticket))
        return response.annotated("cm.fulfil-step", "start")
    }

    /// The ACS side of `reverify`: the user who logged in again must be the patron.
    func reverified(ticket: String, patron: String, next: String) throws -> MockResponse {
        guard let fulfilment = state.fulfilment(ticket) else {
            throw CMProblem.cannotFulfill.detailed("No fulfilment \(ticket) is under way.", code: "fulfil.unknown-ticket")
        }
        guard fulfilment.patron == patron else {
            throw CMProblem.cannotFulfill.detailed(
                "The loan belongs to \(fulfilment.patron), but \(patron) logged in to confirm it.", code: "fulfil.other-patron")
        }
        state.markVerified(ticket)
        return MockResponse.redirect(next).annotated("cm.reverified", patron)
    }

    /// `/delivery/{ticket}/download`: the book, when the request carries every cookie the
    /// circulation manager set along the way — `session` (login), `cm_loan_{id}` (borrow) and
    /// the delivery cookie (the chain's first hop) — and the user re-verified if asked.
    func deliveryDownload(_ request: MockRequest, ticket: String) throws -> MockResponse {
        guard let fulfilment = state.fulfilment(ticket) else {
            throw CMProblem.cannotFulfill.detailed("No fulfilment \(ticket) is under way (unknown or already delivered).",
                                                   code: "fulfil.unknown-ticket")
        }
        guard fulfilment.verified else {
            throw CMProblem.cannotFulfill.detailed("This download waits for the user to log in again at the IdP.",
                                                   code: "fulfil.not-verified")
        }
        guard let session = request.cookie(Self.sessionCookie), state.sessionPatron(session) == fulfilment.patron else {
            throw CMProblem.cannotFulfill.detailed(
                "The download needs the `\(Self.sessionCookie)` cookie the circulation manager set at login; this request did not carry it (or carried another patron's).",
                code: "cookie.session-missing")
        }
        guard let loan = state.loan(of: fulfilment.patron, workID: fulfilment.workID, at: environment.clock.now()),
              request.cookie(Self.loanCookie(fulfilment.workID)) == loan.key else {
            throw CMProblem.cannotFulfill.detailed(
                "The download needs the `\(Self.loanCookie(fulfilment.workID))` cookie the borrow set; this request did not carry it.",
                code: "cookie.loan-missing")
        }
        guard request.cookie(Self.deliveryCookie) == fulfilment.cookieValue else {
            throw CMProblem.cannotFulfill.detailed(
                "The download needs the `\(Self.deliveryCookie)` cookie set by the previous hop of this chain.",
                code: "cookie.delivery-missing")
        }
        guard let book = CMBook.find(fulfilment.workID) else { throw CMProblem.noLicenses }
        state.consumeFulfilment(ticket)
        return bookResponse(book, patron: fulfilment.patron)
    }

    /// The book: its media type, fixed bytes, and their SHA-256 in the traffic log.
    func bookResponse(_ book: CMBook, patron: String) -> MockResponse {
        let bytes = book.bytes
        let filename = book.title.filter { $0.isASCII && ($0.isLetter || $0.isNumber) } + "." + book.format.rawValue
        return MockResponse(status: 200, headers: [
            ("Content-Type", book.format.mediaType),
            ("Content-Disposition", "attachment; filename=\"\(filename)\""),
            ("Cache-Control", "private, no-store"),
        ], body: bytes, annotations: [
            "cm.fulfilled": book.id, "cm.sha256": MessageDigest.sha256.hex(bytes), "cm.patron": patron,
        ])
    }
}
