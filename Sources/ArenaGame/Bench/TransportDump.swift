/// Reads a headless client's dump (`arena join … --script … --dump`) into
/// ``TransportDumpFrame``s: every `--- frame …` header with its `net` figures, and the byte total
/// of the `--- players …` line that follows it. The screens between headers are skipped.
package enum TransportDump {
    /// The frames of `text`, in order.
    ///
    /// - Parameter text: The client's standard output.
    /// - Returns: One frame per header line.
    /// - Throws: ``TransportDumpError`` naming the first header whose figures cannot be read.
    package static func frames(in text: String) throws(TransportDumpError) -> [TransportDumpFrame] {
        var frames: [TransportDumpFrame] = []
        var number = 0
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            number += 1
            if line.hasPrefix("--- frame ") {
                frames.append(try frame(header: String(line), line: number))
            } else if line.hasPrefix("--- players"), !frames.isEmpty, frames[frames.count - 1].bytesReceived == nil {
                frames[frames.count - 1].bytesReceived = bytesReceived(playersLine: line)
            }
        }
        return frames
    }

    /// One header's figures.
    static func frame(header: String, line: Int) throws(TransportDumpError) -> TransportDumpFrame {
        guard let pairs = NetGraphLine.pairs(inHeader: header) else { throw .noFigures(line: line, text: header) }
        func value(_ key: String) throws(TransportDumpError) -> String {
            guard let value = pairs[key] else { throw .missingFigure(key, line: line, text: header) }
            return value
        }
        func number(_ key: String) throws(TransportDumpError) -> Double? {
            let text = try value(key)
            if text == "-" { return nil }
            guard let number = Double(text) else { throw .unreadableFigure(key, value: text, line: line, text: header) }
            return number
        }
        func fraction(_ key: String) throws(TransportDumpError) -> (part: Int, whole: Int) {
            let text = try value(key)
            let sides = text.split(separator: "/", omittingEmptySubsequences: false)
            guard sides.count == 2, let part = Int(sides[0]), let whole = Int(sides[1]) else {
                throw .unreadableFigure(key, value: text, line: line, text: header)
            }
            return (part, whole)
        }
        // Read in the dump's order, so that the first figure missing is the one named.
        guard let time = try number("time") else { throw .unreadableFigure("time", value: "-", line: line, text: header) }
        let transport = try value("transport")
        let ping = try number("ping"), worstPing = try number("ping-worst")
        let extrapolated = try fraction("extrapolated")
        let corrections = try fraction("corrections")
        let age = try number("age"), since = try number("since-snapshot")
        let input = try number("input")
        return TransportDumpFrame(
            time: time, transport: transport == "-" ? nil : transport, ping: ping, worstPing: worstPing, framesRendered: extrapolated.whole,
            extrapolatedFrames: extrapolated.part, snapshotsReceived: corrections.whole, snapshotAge: age, sinceSnapshot: since,
            inputDelay: input)
    }

    /// `T` of the players line's `… · in R B/s, T B in all, S snapshots ---`, or `nil`.
    static func bytesReceived(playersLine line: Substring) -> Int? {
        guard let last = line.split(separator: " · ").last, last.hasPrefix("in ") else { return nil }
        let clauses = last.split(separator: ", ")
        guard clauses.count >= 2, clauses[1].hasSuffix(" B in all") else { return nil }
        return Int(clauses[1].dropLast(" B in all".count))
    }
}
