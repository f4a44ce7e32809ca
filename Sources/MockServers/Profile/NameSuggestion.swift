/// "Did you mean …?" for a mistyped name: the known name nearest to it. One implementation for
/// every name a user types — knobs (`serve --knob`, a scenario's `knobs:`, the control API),
/// check ids and scenario keys (the Harness's loader and schema).
package enum NameSuggestion {
    /// The known word nearest to `word` (edit distance ≤ 2, fewer for a short word), or nil.
    package static func closest(_ word: String, in known: [String]) -> String? {
        let scored = known.map { ($0, editDistance(word.lowercased(), $0.lowercased())) }
        guard let best = scored.min(by: { $0.1 < $1.1 }) else { return nil }
        return best.1 <= max(1, min(2, word.count / 3)) ? best.0 : nil
    }

    /// ` (did you mean `NAME`?)` when a known name is near `word`, else empty: to append to
    /// an "unknown …" message.
    package static func didYouMean(_ word: String, in known: [String]) -> String {
        closest(word, in: known).map { " (did you mean `\($0)`?)" } ?? ""
    }

    /// Levenshtein distance (insertions, deletions, substitutions).
    package static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}
