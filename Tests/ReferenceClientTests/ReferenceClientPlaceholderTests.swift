import Testing
@testable import ReferenceClient
