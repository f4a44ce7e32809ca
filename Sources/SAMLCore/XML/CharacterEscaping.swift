/// The one loop behind XML text, XML attribute and HTML attribute escaping: each scalar is
/// replaced by `replacement(scalar)` when that returns a string, and kept otherwise.
enum CharacterEscaping {
    static func escape(_ value: String, _ replacement: (Unicode.Scalar) -> String?) -> String {
        var out = ""
        out.reserveCapacity(value.utf8.count)
        for scalar in value.unicodeScalars {
            if let r = replacement(scalar) {
                out += r
            } else {
                out.unicodeScalars.append(scalar)
            }
        }
        return out
    }
}
