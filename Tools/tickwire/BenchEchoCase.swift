/// One case of an echo benchmark (`bench ws`, `bench ws --tls`): a message size, connections and
/// messages in flight, and each server's result. The case's name and the ratios between its
/// servers are worked out once, here, for both reports.
protocol BenchEchoCase {
    var size: Int { get }
    var connections: Int { get }
    var inFlight: Int { get }
    var results: [BenchWSResult] { get }
}

extension BenchEchoCase {
    /// "64 KiB × 10 conn × 1 in flight".
    var name: String {
        let sizeText = size >= 1024 ? "\(size / 1024) KiB" : "\(size) B"
        return "\(sizeText) × \(connections) conn × \(inFlight) in flight"
    }

    /// The result of `kind`'s server, when it was measured without failing.
    func result(_ kind: BenchEchoServerProcess.Kind) -> BenchWSResult? {
        results.first { $0.server == kind && $0.failure == nil }
    }

    /// `server`'s messages per second over `baseline`'s, when both were measured.
    func ratio(of server: BenchEchoServerProcess.Kind, to baseline: BenchEchoServerProcess.Kind) -> Double? {
        guard let measured = result(server), let other = result(baseline), other.messagesPerSecond > 0 else { return nil }
        return measured.messagesPerSecond / other.messagesPerSecond
    }
}

/// A text table's line: the first cell left-aligned, the others right-aligned, each to its width.
///
/// - Parameters:
///   - cells: The cells.
///   - widths: Each column's width.
/// - Returns: The line.
func benchTableRow(_ cells: [String], widths: [Int]) -> String {
    zip(cells, widths).enumerated().map { index, pair in
        index == 0
            ? pair.0.padding(toLength: pair.1, withPad: " ", startingAt: 0)
            : String(repeating: " ", count: max(0, pair.1 - pair.0.count)) + pair.0
    }.joined(separator: " ")
}
