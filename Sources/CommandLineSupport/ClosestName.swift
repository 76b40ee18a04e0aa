/// The optimal-string-alignment edit distance between two words: the fewest insertions,
/// deletions, substitutions and swaps of two neighbouring characters that turn one into the
/// other (Damerau–Levenshtein, each substring edited once).
///
/// - Parameters:
///   - first: One word.
///   - second: The other.
/// - Returns: 0 for equal words; `editDistance("prot", "port")` is 1 (one swap).
package func editDistance(_ first: String, _ second: String) -> Int {
    let a = Array(first), b = Array(second)
    guard !a.isEmpty else { return b.count }
    guard !b.isEmpty else { return a.count }
    // Three rows of the dynamic-programming table: two back (for swaps), the previous and the current.
    var twoBack = [Int](repeating: 0, count: b.count + 1)
    var previous = Array(0...b.count)
    var current = [Int](repeating: 0, count: b.count + 1)
    for i in 1...a.count {
        current[0] = i
        for j in 1...b.count {
            let cost = a[i - 1] == b[j - 1] ? 0 : 1
            current[j] = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
                current[j] = min(current[j], twoBack[j - 2] + 1)
            }
        }
        (twoBack, previous, current) = (previous, current, twoBack)
    }
    return previous[b.count]
}

/// The known name a mistyped one most likely meant, for "did you mean …?".
///
/// A name is close when its ``editDistance(_:_:)`` to the typed one is at most 2, or a third of
/// the typed length for long names, and smaller than both lengths (so that `ab` never suggests
/// `cd`); the closest wins, the earlier in `names` on a tie. Failing that, a typed name that is a
/// known one with a word added (`port-udp` for `port`) suggests the longest such known name, and
/// an abbreviation (`compr`) suggests the one name it starts, or the shortest when every name it
/// starts begins with that one (`compression` rather than `compression-level`).
///
/// - Parameters:
///   - typed: What was typed, without leading dashes.
///   - names: The names the command knows, without leading dashes.
/// - Returns: The suggestion, or `nil` when nothing is close enough.
package func closestName(to typed: String, among names: [String]) -> String? {
    let limit = max(2, typed.count / 3)
    var best: (name: String, distance: Int)?
    for name in names where name != typed {
        let distance = editDistance(typed, name)
        guard distance <= limit, distance < typed.count, distance < name.count else { continue }
        if best == nil || distance < best?.distance ?? .max { best = (name, distance) }
    }
    if let best { return best.name }
    let extended = names.filter { typed.hasPrefix($0 + "-") }
    if let longest = extended.max(by: { $0.count < $1.count }) { return longest }
    // An abbreviation: of one name, or of names that all extend the shortest (`compression`, `compression-level`).
    let abbreviated = names.filter { typed.count >= 3 && $0.hasPrefix(typed) }
    guard let shortest = abbreviated.min(by: { $0.count < $1.count }), abbreviated.allSatisfy({ $0.hasPrefix(shortest) }) else {
        return nil
    }
    return shortest
}
