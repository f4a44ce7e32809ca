import Testing
@testable import SAMLCore

@Test func librariesInitialise() throws {
    try XMLLibrary.ensureInitialized()
}
