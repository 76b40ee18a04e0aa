/// A ``TransportEvent`` together with how long it waited on this side before a drain took it:
/// what ``TransportConnection/drainArrivals()`` returns.
///
/// The wait runs from the moment the event arrived (a frame came off the socket on the
/// transport's thread, or a simulated link delivered it) to the drain. A host subtracts it from
/// its clock to learn when a ping really arrived, and a client does the same for a pong, so
/// that the round trip they measure is the network's and not the tick's (PROTOCOL.md §5.9.1).
public struct TransportArrival: Hashable, Sendable {
    /// The event, as ``TransportConnection/drain()`` would return it.
    public var event: TransportEvent
    /// How long the event waited between its arrival and the drain; zero when the transport
    /// does not know (it is then taken to have arrived at the drain).
    public var waited: Duration

    /// Creates an arrival.
    ///
    /// - Parameters:
    ///   - event: The event.
    ///   - waited: How long it waited before the drain; negative values are taken as zero.
    public init(_ event: TransportEvent, waited: Duration = .zero) {
        self.event = event
        self.waited = max(.zero, waited)
    }
}
