import Testing
import TickwireCodec
import TickwireFoundation
import TickwireSimTestSupport

@testable import TickwireSim

/// ``Host/publishedMetrics``: what a host publishes once per pass for `GET /metrics`.
@Suite("Host metrics")
struct HostMetricsTests {
    @Test("clients joining, leaving, resuming and being refused change the published figures and their text")
    func figuresFollowClients() throws {
        let simulation = Simulation(game: DotsGame(orbCount: 4)) { $0.rooms = ["main", "side"] }
        let before = simulation.host.publishedMetrics.latest
        #expect(before.rooms == 0 && before.joins == 0, "nothing is published before the first pass")
        for _ in 0..<2 { simulation.addClient(configure: { $0.room = "main" }) }
        simulation.addClient(configure: { $0.room = "nowhere" })
        simulation.run(for: .seconds(1))
        var metrics = simulation.host.publishedMetrics.latest
        #expect(metrics.rooms == 2)
        #expect(metrics.connectedClients == 2 && metrics.heldClients == 0)
        #expect(metrics.roomClients == [.init(room: "main", connected: 2, held: 0), .init(room: "side", connected: 0, held: 0)])
        #expect(metrics.joins == 2 && metrics.reconnects == 0 && metrics.resumes == 0)
        #expect(metrics.rejections == [.unknownRoom: 1])
        #expect(metrics.snapshotsSent > 0 && metrics.bytesOut > 0 && metrics.bytesIn > 0, "\(metrics)")
        #expect(metrics.tickDuration.count >= 20, "one observation per pass that ticked: \(metrics.tickDuration.count)")
        #expect(metrics.tickDuration.count == simulation.host.passStatistics.ticksRun)

        simulation.connections[0].disconnect()
        simulation.run(for: .milliseconds(500))
        metrics = simulation.host.publishedMetrics.latest
        #expect(metrics.connectedClients == 1 && metrics.heldClients == 1, "a dropped client is held within its grace period")

        simulation.reconnect(0)
        simulation.run(for: .milliseconds(500))
        metrics = simulation.host.publishedMetrics.latest
        #expect(simulation.clients[0].wasResumed)
        #expect(metrics.connectedClients == 2 && metrics.heldClients == 0)
        #expect(metrics.reconnects == 1 && metrics.resumes == 1 && metrics.joins == 2, "a resume is not a join")

        var writer = PrometheusWriter()
        metrics.writeMetrics(to: &writer)
        let text = writer.text
        #expect(PrometheusText.value("tickwire_rooms", in: text) == 2)
        #expect(PrometheusText.value("tickwire_clients{state=\"connected\"}", in: text) == 2)
        #expect(PrometheusText.value("tickwire_room_clients{room=\"main\",state=\"connected\"}", in: text) == 2)
        #expect(PrometheusText.value("tickwire_resumes_total", in: text) == 1)
        #expect(PrometheusText.value("tickwire_handshakes_refused_total{reason=\"unknown_room\"}", in: text) == 1)
        #expect(PrometheusText.value("tickwire_handshakes_refused_total{reason=\"room_full\"}", in: text) == 0, "known reasons start at 0")
        #expect(PrometheusText.value("tickwire_tick_duration_seconds_count", in: text) == Double(metrics.tickDuration.count))
        #expect(PrometheusText.value("tickwire_tick_duration_seconds_bucket{le=\"+Inf\"}", in: text) == Double(metrics.tickDuration.count))
        #expect(PrometheusText.value("tickwire_sent_bytes_total", in: text) == Double(metrics.bytesOut))
        #expect(metrics.fleet == nil && !text.contains("tickwire_fleet_"), "a standalone host writes no fleet families")
    }

    @Test("a room's counts stay in the totals after it closes; the room gauge drops")
    func closedRoomsKeepTheirCounts() {
        let simulation = Simulation(game: DotsGame(orbCount: 4)) { $0.rooms = ["main"] }
        simulation.addClient(configure: { $0.room = "main" })
        simulation.run(for: .milliseconds(500))
        let open = simulation.host.publishedMetrics.latest
        #expect(open.rooms == 1 && open.snapshotsSent > 0)
        simulation.host.closeRoom(named: "main")
        simulation.run(for: .milliseconds(100))
        let closed = simulation.host.publishedMetrics.latest
        #expect(closed.rooms == 0 && closed.connectedClients == 0 && closed.roomClients.isEmpty)
        #expect(closed.snapshotsSent >= open.snapshotsSent && closed.bytesOut >= open.bytesOut, "counters never go down")
    }

    @Test("a label value from a room's name is escaped")
    func roomNameLabel() {
        var metrics = HostMetrics()
        metrics.roomClients = [.init(room: "a\"b\\c", connected: 1, held: 0)]
        var writer = PrometheusWriter()
        metrics.writeMetrics(to: &writer)
        #expect(writer.text.contains("tickwire_room_clients{room=\"a\\\"b\\\\c\",state=\"connected\"} 1\n"))
        #expect(HostMetrics.label(of: Message.Reject.Reason(rawValue: 40000)) == "reason_40000")
    }
}
