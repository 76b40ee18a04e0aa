/// Reads samples out of a Prometheus text body, for the tests of what hosts and servers publish.
package enum PrometheusText {
    /// The value of the sample line that starts with `prefix` (name and labels), or `nil`.
    ///
    /// - Parameters:
    ///   - prefix: The sample's name and labels, as written: `tickwire_rooms` or `x{room="main"}`.
    ///   - body: The Prometheus text.
    /// - Returns: The first such line's value.
    package static func value(_ prefix: String, in body: String) -> Double? {
        for line in body.split(separator: "\n") where line.hasPrefix(prefix + " ") {
            return Double(line.dropFirst(prefix.count + 1))
        }
        return nil
    }
}
