import Foundation
import Testing
@testable import SAMLCore

@Suite struct SAMLMessageDateTimeTests {
    let noon = Date(timeIntervalSince1970: 1_714_564_800) // 2024-05-01T12:00:00Z

    @Test func formatsWholeSecondsInUTCWithZ() {
        #expect(SAMLDateTime.string(from: noon) == "2024-05-01T12:00:00Z")
        #expect(SAMLDateTime.string(from: noon.addingTimeInterval(0.987)) == "2024-05-01T12:00:00Z")
        #expect(SAMLDateTime.string(from: Date(timeIntervalSince1970: 0)) == "1970-01-01T00:00:00Z")
        #expect(SAMLDateTime.string(from: Date(timeIntervalSince1970: 951_782_400)) == "2000-02-29T00:00:00Z")
    }

    @Test func formatsMillisecondsWhenAsked() {
        #expect(SAMLDateTime.string(from: noon.addingTimeInterval(0.0625), precision: .milliseconds)
                == "2024-05-01T12:00:00.062Z")
        #expect(SAMLDateTime.string(from: noon, precision: .milliseconds) == "2024-05-01T12:00:00.000Z")
    }

    @Test(arguments: [
        ("2024-05-01T12:00:00Z", 0.0),
        ("2024-05-01T12:00:00.123Z", 0.123),              // Shibboleth IdP
        ("2024-05-01T12:00:00.1234567Z", 0.1234567),      // AD FS / Azure AD
        ("2024-05-01T12:00:00.5+00:00", 0.5),
        ("2024-05-01T14:00:00+02:00", 0.0),
        ("2024-05-01T07:30:00-04:30", 0.0),
        ("2024-05-01T12:00:00", 0.0),                      // no zone: read as UTC
    ])
    func parsesWhatIdPsSend(text: String, fraction: Double) throws {
        let date = try SAMLDateTime.date(from: text)
        #expect(abs(date.timeIntervalSince1970 - (1_714_564_800 + fraction)) < 1e-6)
    }

    @Test(arguments: ["", "2024-05-01", "2024-13-01T00:00:00Z", "2023-02-29T00:00:00Z",
                      "2024-05-01T24:00:00Z", "2024-05-01T12:00:00.Z", "2024-05-01T12:00:00ZZ",
                      "2024-05-01 12:00:00Z", "2024-05-01T12:00:00+0000", "yesterday"])
    func rejectsMalformedValuesNamingThem(text: String) {
        do {
            _ = try SAMLDateTime.date(from: text)
            Issue.record("accepted \(text)")
        } catch let error as SAMLError {
            #expect(error.reason == .invalidDateTime)
            #expect(error.message.contains("'\(text)'"))
        } catch {
            Issue.record("unexpected \(error)")
        }
    }

    @Test func formatThenParseIsIdentityForWholeSeconds() throws {
        for offset in stride(from: -2_000_000_000.0, through: 4_000_000_000.0, by: 123_456_789.0) {
            let date = Date(timeIntervalSince1970: offset)
            #expect(try SAMLDateTime.date(from: SAMLDateTime.string(from: date)) == date)
        }
    }
}
