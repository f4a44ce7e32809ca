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
