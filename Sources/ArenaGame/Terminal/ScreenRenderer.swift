/// Turns ``ScreenBuffer`` frames into the ANSI escape sequences that draw them, redrawing
/// only the rows that changed since the previous frame.
package struct ScreenRenderer: Sendable {
    /// Whether colours and bold are written; off when `NO_COLOR` is set (no-color.org).
    package let usesColor: Bool
    private var previous: ScreenBuffer?

    /// Creates a renderer.
    ///
    /// - Parameter usesColor: Whether to write colours and bold.
    package init(usesColor: Bool) {
        self.usesColor = usesColor
    }

    /// Forgets the previous frame, so the next one is drawn whole (after a resize, say).
    package mutating func invalidate() {
        previous = nil
    }

    /// The escape sequences that turn the screen showing the previous frame into `frame`.
    ///
    /// - Parameter frame: The frame to show.
    /// - Returns: Bytes to write to the terminal; empty when nothing changed.
    package mutating func render(_ frame: ScreenBuffer) -> String {
        var output = ""
        let isFull = previous.map { $0.width != frame.width || $0.height != frame.height } ?? true
        if isFull { output += "\u{1B}[0m\u{1B}[2J" }
        for row in 0..<frame.height {
            let cells = frame.row(row)
            if !isFull, let previous, previous.row(row) == cells { continue }
            output += "\u{1B}[\(row + 1);1H"
            var current: (TerminalColor, Bool)? = nil
            for cell in cells {
                if usesColor, current.map({ $0 != (cell.color, cell.isBold) }) ?? true {
                    output += "\u{1B}[0;\(cell.color.foregroundCode)\(cell.isBold ? ";1" : "")m"
                    current = (cell.color, cell.isBold)
                }
                output.append(cell.character)
            }
        }
        if usesColor && !output.isEmpty { output += "\u{1B}[0m" }
        previous = frame
        return output
    }
}
