import TickwireCodec

/// What a game's step gets to compensate lag: for each player whose input it applies, the
/// world as that player's screen showed it when the input was sampled.
///
/// The host builds one per tick for a game that asks (``Game/compensatesLag``) and passes it to
/// ``Game/step(_:inputs:dt:lag:)``; a hitscan weapon tests its ray against
/// ``world(seenBy:)`` instead of the present state. Views are interpolated from the room's
/// history with the client's own rules (the same interpolation code), never across a teleport.
///
/// ```swift
/// func step(_ state: State, inputs: [UInt32: Input], dt: Double, lag: LagCompensation) -> State {
///     for (player, input) in inputs.sorted(by: { $0.key < $1.key }) where input.fires {
///         if let seen = lag.world(seenBy: player) { /* test the shot against seen.entities */ }
///     }
///     …
/// }
/// ```
public struct LagCompensation: Sendable {
    let history: LagHistory?
    let renderTicks: [UInt32: Double]
    let isEnabled: Bool

    /// No history: every view is `nil` (a client predicting its own player, or a host that
    /// keeps none). A game's plain ``Game/step(_:inputs:dt:)`` may forward with this.
    public static let unavailable = LagCompensation(history: nil, renderTicks: [:], isEnabled: false)

    init(history: LagHistory?, renderTicks: [UInt32: Double], isEnabled: Bool) {
        self.history = history
        self.renderTicks = renderTicks
        self.isEnabled = isEnabled
    }

    /// The newest captured tick: the world this step starts from; `nil` without history.
    public var presentTick: Double? { history?.newestTick }

    /// The oldest tick a view can be rewound to; `nil` without history.
    public var oldestTick: Double? { history?.oldestTick }

    /// The render time, in ticks, that the host rewinds `player`'s view to for this step's input:
    /// the client's claim (section 5.7.1) clamped to the window, or the host's estimate when the
    /// client sent none or claimed too far from it. The present tick when compensation is off.
    ///
    /// - Parameter player: The player's number.
    /// - Returns: The tick, or `nil` when the player has no input this step or there is no history.
    public func renderTick(of player: UInt32) -> Double? {
        guard let history else { return nil }
        guard isEnabled else { return renderTicks[player] == nil ? nil : history.newestTick }
        return renderTicks[player]
    }

    /// The world as `player` saw it when it sampled this step's input: the room's captured
    /// snapshots interpolated at ``renderTick(of:)`` (the present world when compensation is off).
    ///
    /// - Parameter player: The player's number.
    /// - Returns: The view (entities sorted by id, in game units), or `nil` when the player has
    ///   no input this step or there is no history.
    public func world(seenBy player: UInt32) -> WorldView? {
        guard let history, let tick = renderTick(of: player) else { return nil }
        return history.world(atTick: tick)
    }
}
