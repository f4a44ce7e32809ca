/// Knobs of one mock other than the SAML IdP (CAS, AD FS, the circulation manager). Each
/// family owns its names (all with the family's prefix: `cas-…`, `adfs-…`, `cm-…`), its
/// parsing and its summaries; ``Knob`` wraps them so that every knob is switched on the same
/// way (profile `knobs:`, `serve --knob`, the control API, a scenario).
public protocol KnobFamily: Sendable, Hashable {
    /// Every name of the family, in the documented order.
    static var names: [String] { get }
    /// One example of every knob, for documentation and tests.
    static var examples: [Self] { get }
    /// Parses `name` / `value`; nil when `name` is not one of the family's.
    init?(name: String, value: String?) throws
    /// The knob as written (`name` or `name=value`).
    var text: String { get }
    /// One line: what the knob makes the mock do.
    var summary: String { get }
}

extension KnobFamily {
    /// Throws when a knob that takes no value got one.
    static func noValue(_ name: String, _ value: String?) throws {
        guard value == nil else { throw Knob.ParseError(description: "knob `\(name)` takes no value") }
    }

    /// The value, or an error saying what it should look like.
    static func need(_ name: String, _ value: String?, _ what: String) throws -> String {
        guard let value, !value.isEmpty else { throw Knob.ParseError(description: "knob `\(name)` needs a value: \(name)=\(what)") }
        return value
    }

    /// A number of seconds within `range`.
    static func seconds(_ name: String, _ value: String?, in range: ClosedRange<Double>) throws -> Double {
        let text = try need(name, value, "SECONDS")
        guard let number = Double(text), number.isFinite else {
            throw Knob.ParseError(description: "knob `\(name)`: `\(text)` is not a number")
        }
        guard range.contains(number) else {
            throw Knob.ParseError(description: "knob `\(name)`: \(text) s is outside \(Int(range.lowerBound))…\(Int(range.upperBound))")
        }
        return number
    }

    /// One of `choices`.
    static func choice<T: RawRepresentable & CaseIterable>(_ name: String, _ value: String?, _ type: T.Type) throws -> T
    where T.RawValue == String {
        let all = T.allCases.map(\.rawValue)
        let text = try need(name, value, all.joined(separator: "|"))
        guard let choice = T(rawValue: text) else {
            throw Knob.ParseError(description: "knob `\(name)`: `\(text)` is not one of \(all.joined(separator: ", "))")
        }
        return choice
    }

    /// Seconds as written: whole seconds bare, else to the millisecond (a scaled lifetime).
    static func format(_ seconds: Double) -> String {
        let milliseconds = (seconds * 1000).rounded() / 1000
        return milliseconds == milliseconds.rounded() ? String(Int(milliseconds)) : String(milliseconds)
    }
}
