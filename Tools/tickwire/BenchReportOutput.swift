import ArenaGame
import Foundation

/// A benchmark's result: a table for people, JSON (sorted keys) for `bench all` and `Tools/bench-report`.
protocol BenchReport: Encodable {
    /// The figures as a text table.
    func table() -> String
}

extension BenchReport {
    /// Prints the report as pretty JSON with sorted keys, or as its table.
    ///
    /// - Parameter asJSON: Whether `--json` was given.
    /// - Throws: An `EncodingError` when a figure cannot be encoded (a NaN, say).
    func print(asJSON: Bool) throws {
        if asJSON {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.prettyPrinted, .sortedKeys]
            Swift.print(String(decoding: try encoder.encode(self), as: UTF8.self))
        } else {
            Swift.print(table())
        }
    }
}

extension BenchCodecReport: BenchReport {}
extension BenchSimReport: BenchReport {}
extension BenchWSReport: BenchReport {}
extension TransportBenchReport: BenchReport {}
