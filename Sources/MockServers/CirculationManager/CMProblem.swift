import Foundation

/// A problem detail document as the Library Simplified circulation manager sends it
/// (`core/util/problem_detail.py`: `type`, `title`, `status`, `detail`; media type
/// `application/api-problem+json`, or RFC 7807's `application/problem+json` by knob). The
/// values are those of `api/problem_details.py` and `api/saml/controller.py`.
struct CMProblem: Error, Encodable, Sendable {
    let type: String
    let title: String
    let status: Int
    var detail: String?
    /// The reason code annotated in the traffic log (`cm.problem`); not in the body.
    var code: String

    enum CodingKeys: String, CodingKey { case type, title, status, detail }

    func detailed(_ detail: String, code: String? = nil) -> CMProblem {
        var copy = self
        copy.detail = detail
        if let code { copy.code = code }
        return copy
    }

    static let base = "http://librarysimplified.org/terms/problem/"

    /// `INVALID_CREDENTIALS`: an unknown, expired or forged bearer token.
    static let invalidCredentials = CMProblem(
        type: base + "credentials-invalid", title: "Invalid credentials", status: 401,
        detail: "A valid library card barcode number and PIN are required.", code: "credentials-invalid")
    /// `SAML_INVALID_REQUEST` (api/saml/controller.py).
    static let samlInvalidRequest = CMProblem(
        type: base + "saml/invalid-saml-request", title: "SAML invalid request.", status: 401,
        detail: "SAML invalid request.", code: "saml.invalid-request")
    /// `SAML_INVALID_RESPONSE` (api/saml/controller.py).
    static let samlInvalidResponse = CMProblem(
        type: base + "saml/invalid-saml-response", title: "SAML invalid response.", status: 401,
        detail: "SAML invalid response.", code: "saml.invalid-response")
    /// `UNKNOWN_SAML_PROVIDER`-like: the `provider` names no SAML provider of the library.
    static let unknownProvider = CMProblem(
        type: base + "saml/unknown-provider", title: "Unknown SAML provider.", status: 404,
        detail: "The specified SAML provider name isn't one of the known providers.", code: "saml.unknown-provider")
    /// `NO_LICENSES`: the work is not in the collection.
    static let noLicenses = CMProblem(
        type: base + "no-licenses", title: "No licenses.", status: 403,
        detail: "The library currently has no licenses for this book.", code: "work.unknown")
    /// `NO_ACTIVE_LOAN`: fulfil before borrow.
    static let noActiveLoan = CMProblem(
        type: base + "no-active-loan", title: "No active loan.", status: 400,
        detail: "You can't do this without first borrowing this book.", code: "loan.missing")
    /// `BAD_DELIVERY_MECHANISM`.
    static let badDeliveryMechanism = CMProblem(
        type: base + "bad-delivery-mechanism", title: "Unsupported delivery mechanism.", status: 400,
        detail: "You selected a delivery mechanism that's not supported by this book.", code: "mechanism.unknown")
    /// `CANNOT_FULFILL`: the download step of a fulfilment chain refused.
    static let cannotFulfill = CMProblem(
        type: base + "cannot-fulfill-loan", title: "Could not fulfill loan.", status: 400,
        detail: "Could not fulfill loan.", code: "fulfil.refused")

    /// The answer: the JSON body with the knob's media type, annotated.
    func response(mediaType: String) -> MockResponse {
        MockResponse.json(self, status: status, contentType: mediaType)
            .annotated("cm.problem", code).annotated("cm.problem-type", type)
            .annotated("cm.explanation", detail ?? title)
    }

    /// The problem as the JSON text the real controller puts in `error=` (`pd_json`).
    var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }
}
