/// A client-side ``TransportConnection`` that passes everything to another connection and
/// records each frame it sends (to the server) and receives (to the client) in a
/// ``RecordingWriter``, with the clock's time.
///
/// ```swift
/// let recorder = try RecordingWriter(path: "join.twrec", schema: game.schema)
/// session.connect(over: RecordingConnection(wrapping: connection, recorder: recorder, clock: clock))
/// ```
public final class RecordingConnection: TransportConnection {
    private let inner: any TransportConnection
    private let recorder: RecordingWriter
    private let clock: any TickClock

    /// Wraps a client's connection.
    ///
    /// - Parameters:
    ///   - inner: The connection that carries the frames.
    ///   - recorder: Where the frames are recorded.
    ///   - clock: The clock whose time each record carries.
    public init(wrapping inner: any TransportConnection, recorder: RecordingWriter, clock: any TickClock) {
        self.inner = inner
        self.recorder = recorder
        self.clock = clock
    }

    /// The wrapped connection's id.
    public var connectionID: UInt64 { inner.connectionID }

    /// The wrapped connection's request path (the room a client joins by URL).
    public var requestPath: String? { inner.requestPath }
    /// The wrapped connection's.
    public var deliversFramesInOrder: Bool { inner.deliversFramesInOrder }

    /// Sends the frame, and records it as sent to the server when the wrapped connection took it.
    ///
    /// - Parameter frame: The frame's bytes.
    /// - Returns: The wrapped connection's answer.
    @discardableResult
    public func send(_ frame: [UInt8]) -> TransportSendResult {
        let now = clock.now
        let result = inner.send(frame)
        if result == .taken { recorder.record(direction: .toServer, time: now, bytes: frame) }
        return result
    }

    /// The wrapped connection's readiness.
    ///
    /// - Parameter budgetBytes: The most bytes the sender lets wait in the connection.
    /// - Returns: What the wrapped connection would do with a frame now.
    public func readiness(budgetBytes: Int) -> TransportSendResult { inner.readiness(budgetBytes: budgetBytes) }

    /// The wrapped connection's queued bytes.
    public var bufferedBytes: Int { inner.bufferedBytes }

    /// Drains the wrapped connection, recording each frame as received by the client.
    ///
    /// - Returns: The events, unchanged.
    public func drain() -> [TransportEvent] { drainArrivals().map(\.event) }

    /// Drains the wrapped connection with its waits, recording each frame as received by the client.
    ///
    /// - Returns: The events and their waits, unchanged.
    public func drainArrivals() -> [TransportArrival] {
        let arrivals = inner.drainArrivals()
        let now = clock.now
        for arrival in arrivals {
            if case .frame(let bytes) = arrival.event { recorder.record(direction: .toClient, time: now, bytes: bytes) }
        }
        return arrivals
    }

    /// Closes the wrapped connection with a code and a reason.
    ///
    /// - Parameters:
    ///   - code: The close code.
    ///   - reason: The reason text.
    public func close(code: CloseCode, reason: String) { inner.close(code: code, reason: reason) }

    /// Whether the wrapped connection is closed.
    public var isClosed: Bool { inner.isClosed }
}

extension RecordingConnection: LinkStatisticsReporting {
    /// The wrapped connection's link figures, when it reports any.
    public var linkStatistics: TransportLinkStatistics? { (inner as? any LinkStatisticsReporting)?.linkStatistics }
}
