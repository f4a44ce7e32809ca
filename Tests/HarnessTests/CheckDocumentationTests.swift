import Foundation
import Testing
import TestSupport
@testable import Harness

@Suite struct CheckDocumentationTests {
    @Test func docsChecksMdIsTheGeneratedPage() throws {
        let file = SuiteFixture.repository.appendingPathComponent("docs/checks.md")
        let committed = try String(contentsOf: file, encoding: .utf8)
        #expect(committed == CheckDocumentation.markdown(),
                "docs/checks.md is stale: regenerate with `samlharness list --checks --markdown > docs/checks.md`")
        for id in CheckCatalog.ids {
            #expect(committed.contains("| `\(id)` |"))
        }
    }

    /// Issue 17: every check carries its blind-spot audit beside it in docs/checks.md, and
    /// nothing in it is left "being fixed".
    @Test func everyCheckHasItsBlindSpotAudit() {
        #expect(Set(CheckDocumentation.blindSpots.keys) == Set(CheckCatalog.ids),
                "audited but not a check: \(Set(CheckDocumentation.blindSpots.keys).subtracting(CheckCatalog.ids)); not audited: \(Set(CheckCatalog.ids).subtracting(CheckDocumentation.blindSpots.keys))")
        for (id, text) in CheckDocumentation.blindSpots {
            #expect(text.count >= 60 && !text.contains("|") && !text.contains("\n"), "\(id)")
            #expect(!text.contains("being fixed"), "\(id): the audit still says a fix is pending")
        }
        let page = CheckDocumentation.markdown()
        for id in CheckCatalog.ids { #expect(page.contains("- `\(id)`: "), "\(id) has no audit line in docs/checks.md") }
    }

    @Test func everyCatalogCheckHasAPurposeAReferenceAndFlowsThatExist() {
        #expect(CheckCatalog.all.count >= 40)
        #expect(Set(CheckCatalog.ids).count == CheckCatalog.ids.count)
        for check in CheckCatalog.all {
            #expect(check.id.hasPrefix(check.category.rawValue + "."), "\(check.id)")
            #expect(check.purpose.count >= 20 && !check.purpose.contains("\n"), "\(check.id)")
            #expect(check.reference.count >= 5, "\(check.id)")
        }
    }
}
