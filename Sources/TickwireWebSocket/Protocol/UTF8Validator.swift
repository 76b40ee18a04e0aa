/// An incremental, fail-fast UTF-8 validator: a table-driven DFA fed chunks of any size.
///
/// Feed a text message piece by piece (frame by frame, or read by read) with
/// ``validate(_:)``; it reports invalid input at the first byte that cannot begin or
/// continue a well-formed sequence (RFC 3629: no overlong forms, no surrogates
/// U+D800...U+DFFF, nothing over U+10FFFF), so a connection can fail before the rest of a
/// bad message arrives. A sequence may straddle chunk boundaries; at the end of the
/// message, ``isComplete`` says whether the last sequence was finished.
///
/// ASCII runs are skipped eight bytes at a time.
package struct UTF8Validator: Hashable, Sendable {
    /// The DFA state: ``accept``, ``reject``, or one of the states awaiting continuation bytes.
    @usableFromInline
    var state: UInt8 = UTF8Validator.accept

    @usableFromInline static let accept: UInt8 = 0
    @usableFromInline static let reject: UInt8 = 1

    /// Creates a validator at the start of a text.
    package init() {}

    /// Whether everything fed so far is valid UTF-8 ending on a whole character.
    package var isComplete: Bool { state == Self.accept }

    /// Whether invalid input has been seen; once set, it stays set until ``reset()``.
    package var hasFailed: Bool { state == Self.reject }

    /// Starts over for a new text.
    package mutating func reset() { state = Self.accept }

    /// Validates the next chunk of a text.
    ///
    /// - Parameter bytes: The chunk.
    /// - Returns: `false` as soon as the text so far cannot be valid UTF-8 (whatever follows).
    @inlinable
    package mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return state != Self.reject }
        let count = bytes.count
        var index = 0
        var state = self.state
        if state == Self.reject { return false }
        let table = UTF8Validator.transitions
        while index < count {
            if state == Self.accept {
                // ASCII fast path: eight bytes with no high bit set are eight whole characters.
                while index + 8 <= count {
                    let word = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
                    if word & 0x8080_8080_8080_8080 != 0 { break }
                    index &+= 8
                }
                if index == count { break }
            }
            let byte = base.load(fromByteOffset: index, as: UInt8.self)
            state = table[Int(state) &* UTF8Validator.classCount &+ Int(UTF8Validator.byteClasses[Int(byte)])]
            if state == Self.reject {
                self.state = state
                return false
            }
            index &+= 1
        }
        self.state = state
        return true
    }

    /// Validates the next chunk of a text.
    ///
    /// - Parameter bytes: The chunk.
    /// - Returns: `false` as soon as the text so far cannot be valid UTF-8.
    package mutating func validate(_ bytes: [UInt8]) -> Bool {
        bytes.withUnsafeBytes { validate($0) }
    }

    /// Whether `bytes` on its own is a complete, valid UTF-8 text.
    ///
    /// - Parameter bytes: The text.
    /// - Returns: `true` for valid UTF-8 that ends on a whole character.
    package static func isValid(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isComplete
    }

    // MARK: The table

    /// Byte classes: bytes that behave alike in every state share a class.
    ///  0: 00–7F ASCII          1: 80–8F continuation    2: 90–9F continuation   3: A0–BF continuation
    ///  4: C0–C1, F5–FF never   5: C2–DF two-byte lead   6: E0 (next A0–BF)       7: E1–EC, EE–EF three-byte lead
    ///  8: ED (next 80–9F)      9: F0 (next 90–BF)      10: F1–F3 four-byte lead 11: F4 (next 80–8F)
    @usableFromInline
    static let byteClasses: [UInt8] = (0...255).map { (byte: Int) -> UInt8 in
        switch byte {
        case 0x00...0x7F: 0
        case 0x80...0x8F: 1
        case 0x90...0x9F: 2
        case 0xA0...0xBF: 3
        case 0xC2...0xDF: 5
        case 0xE0: 6
        case 0xE1...0xEC, 0xEE...0xEF: 7
        case 0xED: 8
        case 0xF0: 9
        case 0xF1...0xF3: 10
        case 0xF4: 11
        default: 4
        }
    }

    @usableFromInline static let classCount = 12

    /// States: 0 accept, 1 reject, 2/3/4 need 1/2/3 more continuation bytes (any of 80–BF),
    /// 5 after E0 (needs A0–BF), 6 after ED (needs 80–9F), 7 after F0 (needs 90–BF),
    /// 8 after F4 (needs 80–8F). `transitions[state * classCount + class]` is the next state.
    @usableFromInline
    static let transitions: [UInt8] = {
        let stateCount = 9
        var table = [UInt8](repeating: UTF8Validator.reject, count: stateCount * classCount)
        func set(_ state: Int, _ classes: [Int], _ next: UInt8) {
            for byteClass in classes { table[state * classCount + byteClass] = next }
        }
        // From accept: ASCII stays; a lead byte picks how many continuations follow and their range.
        set(0, [0], 0)
        set(0, [5], 2)
        set(0, [7], 3)
        set(0, [6], 5)
        set(0, [8], 6)
        set(0, [10], 4)
        set(0, [9], 7)
        set(0, [11], 8)
        // Plain continuation states.
        set(2, [1, 2, 3], 0)
        set(3, [1, 2, 3], 2)
        set(4, [1, 2, 3], 3)
        // Restricted second bytes: no overlongs (E0, F0), no surrogates (ED), nothing past U+10FFFF (F4).
        set(5, [3], 2)
        set(6, [1, 2], 2)
        set(7, [2, 3], 3)
        set(8, [1], 3)
        return table
    }()
}
