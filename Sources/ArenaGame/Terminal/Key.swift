/// A key the arena understands, decoded from the bytes a terminal sends.
package enum Key: Hashable, Sendable {
    /// A printable character (letters are reported as typed, e.g. `w` or `W`).
    case character(Character)
    /// An arrow key.
    case up, down, left, right
    /// The space bar.
    case space
    /// The escape key on its own.
    case escape
    /// Ctrl-C, which in raw mode arrives as a byte rather than a signal.
    case interrupt
    /// Enter or return.
    case enter
}
