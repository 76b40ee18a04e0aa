/// A colour of the terminal's basic palette, or the terminal's default.
package struct TerminalColor: Hashable, Sendable {
    /// The SGR foreground code (30...37, 90...97), or 39 for the default.
    let foregroundCode: UInt8

    /// The terminal's default foreground colour.
    package static let `default` = TerminalColor(foregroundCode: 39)
    /// Red.
    package static let red = TerminalColor(foregroundCode: 31)
    /// Green.
    package static let green = TerminalColor(foregroundCode: 32)
    /// Yellow.
    package static let yellow = TerminalColor(foregroundCode: 33)
    /// Blue.
    package static let blue = TerminalColor(foregroundCode: 34)
    /// Magenta.
    package static let magenta = TerminalColor(foregroundCode: 35)
    /// Cyan.
    package static let cyan = TerminalColor(foregroundCode: 36)
    /// White.
    package static let white = TerminalColor(foregroundCode: 37)
    /// Grey (bright black).
    package static let grey = TerminalColor(foregroundCode: 90)
    /// Bright yellow.
    package static let brightYellow = TerminalColor(foregroundCode: 93)
}

/// One character cell of the screen: a character, its colour, and whether it is bold.
package struct ScreenCell: Hashable, Sendable {
    /// The character shown; one column wide.
    package var character: Character
    /// The foreground colour.
    package var color: TerminalColor
    /// Whether the character is drawn bold.
    package var isBold: Bool

    /// A blank cell.
    package static let blank = ScreenCell(character: " ", color: .default, isBold: false)

    /// Creates a cell.
    ///
    /// - Parameters:
    ///   - character: A one-column character.
    ///   - color: Its foreground colour.
    ///   - isBold: Whether it is bold.
    package init(character: Character, color: TerminalColor = .default, isBold: Bool = false) {
        self.character = character
        self.color = color
        self.isBold = isBold
    }
}

/// A grid of ``ScreenCell``s the size of the terminal: what one frame of the arena shows.
///
/// Drawing outside the grid is clipped, never a crash, so a frame drawn for 80×24 is safe
/// on any terminal size.
package struct ScreenBuffer: Hashable, Sendable {
    /// Columns.
    package let width: Int
    /// Rows.
    package let height: Int
    private var cells: [ScreenCell]

    /// Creates a blank buffer.
    ///
    /// - Parameters:
    ///   - width: Columns (negative counts as zero).
    ///   - height: Rows (negative counts as zero).
    package init(width: Int, height: Int) {
        self.width = max(width, 0)
        self.height = max(height, 0)
        cells = Array(repeating: .blank, count: self.width * self.height)
    }

    /// The cell at a column and row, or a blank one outside the grid.
    package subscript(column: Int, row: Int) -> ScreenCell {
        get {
            guard contains(column: column, row: row) else { return .blank }
            return cells[row * width + column]
        }
        set {
            guard contains(column: column, row: row) else { return }
            cells[row * width + column] = newValue
        }
    }

    /// Whether a column and row lie inside the grid.
    package func contains(column: Int, row: Int) -> Bool {
        column >= 0 && column < width && row >= 0 && row < height
    }

    /// Writes `text` from a column and row rightwards, clipped to the grid.
    ///
    /// - Parameters:
    ///   - text: The text; each character takes one column.
    ///   - column: The first column.
    ///   - row: The row.
    ///   - color: The colour of every character.
    ///   - isBold: Whether the text is bold.
    package mutating func write(_ text: String, column: Int, row: Int, color: TerminalColor = .default, isBold: Bool = false) {
        var x = column
        for character in text {
            self[x, row] = ScreenCell(character: character, color: color, isBold: isBold)
            x += 1
        }
    }

    /// The characters of one row, without colours, trailing blanks kept.
    ///
    /// - Parameter row: The row, 0 at the top.
    /// - Returns: The row's text, or an empty string outside the grid.
    package func text(ofRow row: Int) -> String {
        guard row >= 0 && row < height else { return "" }
        return String(cells[(row * width)..<((row + 1) * width)].map(\.character))
    }

    /// The whole buffer as plain text, one line per row with trailing blanks trimmed:
    /// what headless play prints and what tests read.
    package var plainText: String {
        (0..<height).map { row in
            var line = text(ofRow: row)
            while line.last == " " { line.removeLast() }
            return line
        }.joined(separator: "\n")
    }

    /// The cells of one row.
    func row(_ row: Int) -> ArraySlice<ScreenCell> {
        cells[(row * width)..<((row + 1) * width)]
    }
}
