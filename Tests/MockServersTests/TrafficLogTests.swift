import Foundation
import Testing
@testable import MockServers

@Suite struct KnobParsingTests {
    @Test func everyExampleRoundTripsThroughItsText() throws {
        for knob in Knob.examples {
            #expect(try Knob(parsing: knob.text) == knob, "\(knob.text)")
            #expect(!knob.summary.isEmpty)
        }
    }

    @Test func badKnobsNameWhatWasWrong() {
        #expect(throws: Knob.ParseError.self) { try Knob(parsing: "wrong-audiance") }
        do {
            _ = try Knob(parsing: "clock-skew=soon")
            Issue.record("accepted clock-skew=soon")
        } catch {
            #expect("\(error)".contains("`soon` is not a number"))
        }
        do {
            _ = try Knob(parsing: "wrong-issuer=yes")
            Issue.record("accepted a value on a flag knob")
        } catch {
            #expect("\(error)".contains("takes no value"))
        }
    }
}
