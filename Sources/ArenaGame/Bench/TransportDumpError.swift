/// Why a client's dump could not be read as frames of figures: which line, and what it lacked.
package struct TransportDumpError: Error, Hashable, Sendable, CustomStringConvertible {
    private enum Reason: Hashable, Sendable {
        case noFigures
        case missingFigure(String)
        case unreadableFigure(String, String)
    }

    private let reason: Reason
    /// The line's number in the dump, from 1.
    package let line: Int
    /// The line itself, cut to 200 characters.
    package let text: String

    /// A header without a well-formed `net` segment (an `arena join` older than the figures?).
    static func noFigures(line: Int, text: String) -> Self { Self(reason: .noFigures, line: line, text: String(text.prefix(200))) }

    /// A `net` segment without the figure `key`.
    static func missingFigure(_ key: String, line: Int, text: String) -> Self {
        Self(reason: .missingFigure(key), line: line, text: String(text.prefix(200)))
    }

    /// A figure whose value does not read as the number (or `part/whole`) it should be.
    static func unreadableFigure(_ key: String, value: String, line: Int, text: String) -> Self {
        Self(reason: .unreadableFigure(key, value), line: line, text: String(text.prefix(200)))
    }

    package var description: String {
        switch reason {
        case .noFigures: "dump line \(line) is a frame header without a well-formed `net` segment: \(text)"
        case .missingFigure(let key): "dump line \(line) has no `\(key)` figure: \(text)"
        case .unreadableFigure(let key, let value): "dump line \(line): the figure `\(key)` reads '\(value)', not a number: \(text)"
        }
    }
}
