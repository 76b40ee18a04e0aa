import Synchronization
import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// A connection that goes nowhere and reports the link figures a test sets, as a UDP connection
/// reports its packet layer's.
final class MeasuredLinkConnection: LinkStatisticsReporting, Sendable {
    let measured = Mutex<TransportLinkStatistics?>(nil)
    let connectionID: UInt64 = 1
    var bufferedBytes: Int { 0 }
    var isClosed: Bool { false }
    var linkStatistics: TransportLinkStatistics? { measured.withLock { $0 } }
    func send(_ frame: [UInt8]) -> TransportSendResult { .taken }
    func drain() -> [TransportEvent] { [] }
    func close(code: CloseCode, reason: String) {}
}

/// A connection that goes nowhere and measures nothing of its link, as a WebSocket connection.
final class UnmeasuredConnection: TransportConnection, Sendable {
    let connectionID: UInt64 = 2
    var bufferedBytes: Int { 0 }
    var isClosed: Bool { false }
    func send(_ frame: [UInt8]) -> TransportSendResult { .taken }
    func drain() -> [TransportEvent] { [] }
    func close(code: CloseCode, reason: String) {}
}

@Suite("LinkStatisticsReporting: a connection's own link figures reach the session's")
struct LinkStatisticsReportingTests {
    static let udp = TransportLinkStatistics(transport: "udp", roundTripTime: 0.012, jitter: 0.002, packetLoss: 0.25)

    @Test("a session over a connection that reports its link shows its transport, loss, round trip and jitter")
    func figuresFromTheLink() {
        let connection = MeasuredLinkConnection()
        let session = ClientSession(game: DotsGame(orbCount: 1), clock: VirtualClock())
        session.connect(over: connection)
        var figures = session.figures
        #expect(figures.transport == nil && figures.loss == nil, "a link that reports nothing yet gives no figures")
        connection.measured.withLock { $0 = Self.udp }
        figures = session.figures
        #expect(figures.transport == "udp")
        #expect(figures.loss == 0.25 && figures.linkRoundTrip == 0.012 && figures.linkJitter == 0.002)
    }

    @Test("a wrapping connection passes the wrapped one's figures on, and has none over a connection without them")
    func throughWrappers() {
        let connection = MeasuredLinkConnection()
        connection.measured.withLock { $0 = Self.udp }
        let impaired = ImpairedTransportConnection(wrapping: connection, clock: VirtualClock())
        #expect(impaired.linkStatistics == Self.udp)
        let session = ClientSession(game: DotsGame(orbCount: 1), clock: VirtualClock())
        session.connect(over: impaired)
        #expect(session.figures.transport == "udp" && session.figures.loss == 0.25, "through the bad-network layer")

        let silent = ImpairedTransportConnection(wrapping: UnmeasuredConnection(), clock: VirtualClock())
        #expect(silent.linkStatistics == nil, "a wrapper around a connection that measures nothing reports nothing")
        session.connect(over: silent)
        #expect(session.figures.transport == nil && session.figures.loss == nil, "a new connection replaces the old link's figures")
    }
}
