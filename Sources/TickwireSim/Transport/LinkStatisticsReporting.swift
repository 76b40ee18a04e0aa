/// A ``TransportConnection`` that measures its own link (round trip, jitter, packet loss) and
/// says so: a ``ClientSession`` reads it into ``ClientSession/figures`` whatever the transport.
///
/// A transport over datagrams (UDP) adopts it; one over TCP (WebSocket) has no loss to measure
/// and need not. A connection that wraps another (``ImpairedTransportConnection``,
/// ``RecordingConnection``) adopts it too and passes on the wrapped connection's figures, or
/// `nil` when that one reports none.
///
/// ```swift
/// if let link = (connection as? any LinkStatisticsReporting)?.linkStatistics {
///     print("\(link.transport): loss \(link.packetLoss ?? 0)")
/// }
/// ```
public protocol LinkStatisticsReporting: TransportConnection {
    /// The link's figures as the transport last measured them, or `nil` when this connection
    /// has none to report (a wrapper around a connection that measures nothing). Safe to read
    /// from the thread that drives the session.
    var linkStatistics: TransportLinkStatistics? { get }
}
