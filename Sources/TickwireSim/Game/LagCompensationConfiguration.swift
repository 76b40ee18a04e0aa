/// How a ``Host`` compensates lag for a game that asks for it (``Game/compensatesLag``): how
/// far back it keeps each room's captured world, and how far it trusts what clients claim they
/// were showing.
///
/// The host rewinds a player's view to the render time the client sent with the input
/// (`Protocol/PROTOCOL.md` §5.7.1); without one it uses its own estimate. A claim older than
/// ``window`` is clamped to it, and a claim further than ``tolerance`` from the estimate is
/// replaced by the estimate, so a cheating client gains at most ``tolerance``.
public struct LagCompensationConfiguration: Hashable, Sendable {
    /// The longest a view is rewound, and the history each room keeps (about `window × tick
    /// rate + 1` snapshots, shared with the delta history where they overlap): a render time
    /// older than this is clamped to it. 1 s by default, as Source's `sv_maxunlag`.
    public var window: Duration = .seconds(1)
    /// A claimed render time further than this from the host's estimate (the input's arrival −
    /// half the client's round trip − ``assumedInterpolationDelay``) is replaced by the estimate.
    /// `nil` trusts every claim within the window.
    public var tolerance: Duration? = .milliseconds(200)
    /// The interpolation delay the host's estimate assumes a client shows the world with (the
    /// host cannot see a client's own; Tickwire's client holds about two snapshot intervals).
    public var assumedInterpolationDelay: Duration = .milliseconds(100)
    /// Two consecutive captures of an entity in which a linear field (integer or float) moved
    /// further than this, in game units, count as a teleport: the history never places the
    /// entity between them. `nil`, the default, leaves teleports to the game
    /// (``Game/teleportedEntities(in:)``).
    public var snapDistance: Double?
    /// Whether views are rewound at all: `false` makes ``LagCompensation/world(seenBy:)`` answer
    /// the present world (the newest capture) for every player, to compare with and without.
    public var isEnabled = true

    /// Creates the default settings: a 1 s window, 200 ms tolerance, 100 ms assumed
    /// interpolation delay, no snap distance, enabled.
    public init() {}
}
