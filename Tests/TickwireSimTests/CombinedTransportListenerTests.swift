import Testing

@testable import TickwireSim

@Suite("CombinedTransportListener")
struct CombinedTransportListenerTests {
    /// Where the listeners write when their batching begins and ends.
    final class Log: @unchecked Sendable {
        // Unchecked: the test touches it from its own thread only.
        var lines: [String] = []
    }

    /// Logs when its batching wraps the sending.
    final class CountingListener: TransportListener, Sendable {
        let name: String
        let log: Log
        init(_ name: String, log: Log) {
            self.name = name
            self.log = log
        }
        func acceptPending() -> [any TransportConnection] { [] }
        func batchingSends(_ body: () -> Void) {
            log.lines.append("\(name) begins")
            body()
            log.lines.append("\(name) ends")
        }
    }

    @Test("connections come from every listener, and every listener's batching wraps the one sending, nested")
    func combines() {
        let clock = VirtualClock()
        let first = SimulatedNetwork(clock: clock, seed: 1)
        let second = SimulatedNetwork(clock: clock, seed: 2)
        _ = first.connect()
        _ = second.connect()
        _ = second.connect()
        let combined = CombinedTransportListener([first, second])
        #expect(combined.acceptPending().count == 3, "one from the first network, two from the second")
        #expect(combined.acceptPending().isEmpty, "each connection is taken once")

        let log = Log()
        CombinedTransportListener([CountingListener("a", log: log), CountingListener("b", log: log)]).batchingSends {
            log.lines.append("send")
        }
        #expect(log.lines == ["a begins", "b begins", "send", "b ends", "a ends"], "the batchings nest around one run of the sending")
    }
}
