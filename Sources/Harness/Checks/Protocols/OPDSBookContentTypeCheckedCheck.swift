import Foundation
import MockServers
import SAMLCore

/// `opds.book-content-type-checked`: a fulfilled document is taken as a book only when its
/// Content-Type is a book's (EPUB, PDF), never an HTML or problem page (OPDS 1.2 §5; RFC 9457).
struct OPDSBookContentTypeCheckedCheck: Check {
    static let id = "opds.book-content-type-checked"

    static let bookTypes: Set<String> = ["application/epub+zip", "application/pdf"]

    func evaluate(_ context: CheckContext) -> CheckOutcome {
        let fulfilment = context.entries.filter(OPDSTraffic.isFulfilment).filter { $0.response != nil }
        guard !fulfilment.isEmpty else { return .notApplicable("the client never asked to fulfil a loan") }
        let books = fulfilment.filter { Self.bookTypes.contains(ProtocolTraffic.mediaType($0.response?.header("Content-Type")) ?? "") }
        let others = fulfilment.filter { entry in
            guard let response = entry.response, !(300..<400).contains(response.status), !response.body.isEmpty else { return false }
            return !Self.bookTypes.contains(ProtocolTraffic.mediaType(response.header("Content-Type")) ?? "")
        }
        let execution = context.execution
        guard execution.claimsSuccess else {
            guard !others.isEmpty else { return .notApplicable("the client claimed no book and was served no page that is not one") }
            return .pass("the client did not take the page that is not a book as one", others.prefix(3).map { typeEvidence($0, "not a book") })
        }
        let resource = execution.report?.resource ?? ""
        let taken = others.filter { entry in
            let body = entry.response?.body ?? []
            return !resource.isEmpty && (resource.localizedCaseInsensitiveContains(MessageDigest.sha256.hex(body))
                || (body.count >= 40 && resource.contains(String(decoding: body.prefix(200), as: UTF8.self))))
        }
        if !taken.isEmpty {
            return .fail("the client took a page that is not a book as the book", taken.map { typeEvidence($0, "taken as the book") })
        }
        guard !books.isEmpty else {
            return .fail("the client claimed the book, but no fulfilment answer had a book Content-Type",
                         others.prefix(3).map { typeEvidence($0, "the fulfilment's answer") })
        }
        return .pass("the client's book came with a book Content-Type", books.map { typeEvidence($0, "the book") })
    }

    private func typeEvidence(_ entry: TrafficEntry, _ detail: String) -> Evidence {
        ProtocolTraffic.evidence(entry, "\(detail): Content-Type \(entry.response?.header("Content-Type") ?? "none")")
    }
}
