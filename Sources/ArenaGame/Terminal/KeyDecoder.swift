/// Turns the bytes a terminal in raw mode sends into ``Key``s.
///
/// Handles the escape sequences of arrow keys in both forms terminals use (`ESC [ A` and
/// the application-mode `ESC O A`), across reads that split them. An escape byte with
/// nothing after it is held back until ``flushPendingEscape()`` says no more is coming.
package struct KeyDecoder: Sendable {
    private var pending: [UInt8] = []

    /// Creates a decoder with nothing pending.
    package init() {}

    /// Decodes `bytes`, keeping an incomplete escape sequence for the next call.
    ///
    /// - Parameter bytes: What the terminal sent, in any chunking.
    /// - Returns: The keys completed by these bytes, in order. Bytes that mean nothing
    ///   to the arena (function keys, mouse reports, invalid UTF-8) are skipped.
    package mutating func decode(_ bytes: [UInt8]) -> [Key] {
        pending.append(contentsOf: bytes)
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            let byte = pending[index]
            switch byte {
            case 0x1B:
                guard index + 1 < pending.count else {
                    pending.removeFirst(index)
                    return keys
                }
                let next = pending[index + 1]
                guard next == UInt8(ascii: "[") || next == UInt8(ascii: "O") else {
                    keys.append(.escape)
                    index += 1
                    continue
                }
                // CSI or SS3: parameters and intermediates, then a final byte in 0x40...0x7E.
                var end = index + 2
                while end < pending.count, !(0x40...0x7E).contains(pending[end]) { end += 1 }
                guard end < pending.count else {
                    pending.removeFirst(index)
                    return keys
                }
                switch pending[end] {
                case UInt8(ascii: "A"): keys.append(.up)
                case UInt8(ascii: "B"): keys.append(.down)
                case UInt8(ascii: "C"): keys.append(.right)
                case UInt8(ascii: "D"): keys.append(.left)
                default: break
                }
                index = end + 1
            case 0x03:
                keys.append(.interrupt)
                index += 1
            case 0x0D, 0x0A:
                keys.append(.enter)
                index += 1
            case 0x20:
                keys.append(.space)
                index += 1
            case 0x21...0x7E:
                keys.append(.character(Character(Unicode.Scalar(byte))))
                index += 1
            default:
                // Other control bytes and non-ASCII input are not arena keys.
                index += 1
            }
        }
        pending.removeAll(keepingCapacity: true)
        return keys
    }

    /// Reports a held-back lone escape byte as ``Key/escape``: call it when a read timed out
    /// with an escape pending, since a real escape sequence arrives in one burst.
    ///
    /// - Returns: The pending keys (an escape, or nothing).
    package mutating func flushPendingEscape() -> [Key] {
        guard pending == [0x1B] else { return [] }
        pending.removeAll()
        return [.escape]
    }
}
