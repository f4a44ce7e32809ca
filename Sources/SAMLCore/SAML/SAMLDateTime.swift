import Foundation

/// xs:dateTime as SAML writes and reads it.
///
/// saml-core-2.0-os §1.3.3: "All SAML time values have the type xs:dateTime … and MUST be
/// expressed in UTC form, with no time zone component" — in practice every producer writes
/// a trailing `Z`. Writing is always UTC with `Z`, whole seconds unless milliseconds are
/// asked for (§1.3.3: "SAML system entities SHOULD NOT rely on time resolution finer than
/// milliseconds"). Reading accepts what real IdPs send: fractional seconds of any length
/// (Shibboleth `.123Z`, AD FS / Azure AD `.1234567Z`), `Z`, a numeric offset such as
/// `+00:00`, or no zone at all (read as UTC).
///
/// ```swift
/// SAMLDateTime.string(from: Date(timeIntervalSince1970: 0))   // "1970-01-01T00:00:00Z"
/// try SAMLDateTime.date(from: "2024-05-01T12:00:00.1234567+00:00")
/// ```
public enum SAMLDateTime {
    /// How many fractional digits to write.
    public enum Precision: Sendable {
        /// `2024-05-01T12:00:00Z`.
        case seconds
        /// `2024-05-01T12:00:00.123Z`.
        case milliseconds
    }

    /// Formats `date` in UTC with a `Z`. Sub-second parts are truncated, not rounded, so an
    /// instant is never written later than it is.
    public static func string(from date: Date, precision: Precision = .seconds) -> String {
        let totalMillis = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = totalMillis / 1000
        var millis = totalMillis % 1000
        if millis < 0 { millis += 1000; seconds -= 1 }
        var days = seconds / 86_400
        var secondOfDay = seconds % 86_400
        if secondOfDay < 0 { secondOfDay += 86_400; days -= 1 }
        let (y, m, d) = civil(fromDays: days)
        var text = pad(y, 4) + "-" + pad(m, 2) + "-" + pad(d, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
        if precision == .milliseconds { text += "." + pad(millis, 3) }
        return text + "Z"
    }

    /// Parses an xs:dateTime. Throws ``SAMLError/Reason/invalidDateTime`` naming the value.
    public static func date(from string: String) throws -> Date {
        guard let date = parse(Array(string.utf8)) else {
            throw SAMLError(.invalidDateTime, "'\(string)' is not an xs:dateTime (expected e.g. 2024-05-01T12:00:00Z)")
        }
        return date
    }

    /// `date` truncated to whole seconds: what ``string(from:precision:)`` writes by default,
    /// so a value built from a clock equals the value read back from its XML.
    public static func truncated(_ date: Date) -> Date {
        Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down))
    }

    // XML Schema Part 2 §3.2.7.1 lexical form: YYYY-MM-DDThh:mm:ss(.s+)?(Z|(+|-)hh:mm)?
    private static func parse(_ b: [UInt8]) -> Date? {
        var i = 0
        func digits(_ n: Int) -> Int64? {
            guard i + n <= b.count else { return nil }
            var v: Int64 = 0
            for k in i..<(i + n) {
                guard b[k] >= 0x30, b[k] <= 0x39 else { return nil }
                v = v * 10 + Int64(b[k] - 0x30)
            }
            i += n
            return v
        }
        func expect(_ c: UInt8) -> Bool {
            guard i < b.count, b[i] == c else { return false }
            i += 1
            return true
        }
        guard let year = digits(4), expect(UInt8(ascii: "-")), let month = digits(2),
              expect(UInt8(ascii: "-")), let day = digits(2), expect(UInt8(ascii: "T")),
              let hour = digits(2), expect(UInt8(ascii: ":")), let minute = digits(2),
              expect(UInt8(ascii: ":")), let second = digits(2) else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year),
              hour <= 23, minute <= 59, second <= 59 else { return nil }
        var fraction = 0.0
        if expect(UInt8(ascii: ".")) {
            var scale = 0.1
            let start = i
            while i < b.count, b[i] >= 0x30, b[i] <= 0x39 {
                fraction += Double(b[i] - 0x30) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset: Int64 = 0
        if i < b.count {
            if expect(UInt8(ascii: "Z")) {
                // UTC
            } else if b[i] == UInt8(ascii: "+") || b[i] == UInt8(ascii: "-") {
                let sign: Int64 = b[i] == UInt8(ascii: "-") ? -1 : 1
                i += 1
                guard let oh = digits(2), expect(UInt8(ascii: ":")), let om = digits(2),
                      oh <= 14, om <= 59 else { return nil }
                offset = sign * (oh * 3600 + om * 60)
            } else {
                return nil
            }
        }
        guard i == b.count else { return nil }
        let seconds = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    // Days since 1970-01-01 in the proleptic Gregorian calendar (H. Hinnant's algorithm).
    private static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yoe = y - era * 400
        let doy = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy
        return era * 146_097 + doe - 719_468
    }

    private static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let doe = z - era * 146_097
        let yoe = (doe - doe / 1460 + doe / 36524 - doe / 146_096) / 365
        let doy = doe - (365 * yoe + yoe / 4 - yoe / 100)
        let mp = (5 * doy + 2) / 153
        let d = doy - (153 * mp + 2) / 5 + 1
        let m = mp < 10 ? mp + 3 : mp - 9
        return (m <= 2 ? yoe + era * 400 + 1 : yoe + era * 400, m, d)
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let s = String(value)
        return s.count >= width ? s : String(repeating: "0", count: width - s.count) + s
    }
}
