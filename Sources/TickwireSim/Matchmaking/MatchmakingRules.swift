/// What a matchmaker serves: its modes, each with the capacity of its rooms, and how long a
/// reserved seat waits for its player.
public struct MatchmakingRules: Hashable, Sendable {
    /// The longest mode name: 32 bytes (a room's name is the mode, a dash and 8 hex digits, well
    /// inside the hello's 64-byte room names).
    public static let maximumModeBytes = 32

    /// Each mode's room capacity.
    public var capacities: [String: Int]
    /// How long a reserved seat waits for its player's hello before it is given back (the
    /// token's time to connect; default 30 s).
    public var reservationTTL: Duration

    /// Rules for some modes.
    ///
    /// - Parameters:
    ///   - capacities: Each mode's room capacity (modes of 1 to ``maximumModeBytes`` bytes of
    ///     letters, digits, `-` and `_`; others are left out, as are capacities below 1).
    ///   - reservationTTL: How long a reserved seat waits.
    public init(capacities: [String: Int], reservationTTL: Duration = .seconds(30)) {
        self.capacities = capacities.filter { mode, capacity in capacity >= 1 && Self.isValidMode(mode) }
        self.reservationTTL = reservationTTL
    }

    /// Whether `mode` can name a mode: 1 to ``maximumModeBytes`` bytes of ASCII letters, digits, `-` and `_`.
    ///
    /// - Parameter mode: A name.
    /// - Returns: Whether it is valid.
    public static func isValidMode(_ mode: String) -> Bool {
        let bytes = Array(mode.utf8)
        return (1...maximumModeBytes).contains(bytes.count)
            && bytes.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                    || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
            }
    }
}
