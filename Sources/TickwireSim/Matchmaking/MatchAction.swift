/// What a player asks a matchmaker for (Colyseus's four calls): a seat in a room of a mode, made
/// if none is open, or only an open one, or a new room, or a seat in a room it names.
public enum MatchAction: Hashable, Sendable {
    /// A seat in the fullest open room of `mode` that has one free, or in a new room of it.
    case joinOrCreate(mode: String)
    /// A seat in the fullest open room of `mode` that has one free; none is made.
    case join(mode: String)
    /// The first seat of a new room of `mode`; a private room (`isPrivate`) is left out of
    /// listings and of `join`/`joinOrCreate`, and joined only by its name (``joinByID(room:)``).
    case create(mode: String, isPrivate: Bool = false)
    /// A seat in the room named `room` (private rooms included: whoever knows the name may join).
    case joinByID(room: String)
}
