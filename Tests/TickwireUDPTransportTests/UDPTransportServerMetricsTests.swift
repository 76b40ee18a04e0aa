import Testing
import TickwireFoundation
import TickwireNetcode

@testable import TickwireUDPTransport

@Suite("The UDP server's figures on GET /metrics")
struct UDPTransportServerMetricsTests {
    @Test("netcode.io's ignored packets by code fall into the reasons; a wrong size inside a packet is garbage")
    func classify() {
        let ignored: [NetcodeError.Code: Int] = [
            .wrongSize: 7, .authenticationFailed: 3, .replayed: 2, .noEncryptionMapping: 4, .invalidState: 1,
            .tokenExpired: 5, .invalidPacketType: 6,
        ]
        let byReason = UDPTransportServer.IgnoreReason.classify(ignored)
        #expect(byReason[.short] == nil && byReason[.oversized] == nil, "those never reach netcode.io")
        #expect(byReason[.badMAC] == 3)
        #expect(byReason[.replay] == 2)
        #expect(byReason[.unknownAddress] == 5)
        #expect(byReason[.refusedRequest] == 5)
        #expect(byReason[.garbage] == 13, "6 unknown types and 7 sizes wrong for their packet")
        #expect(byReason.values.reduce(0, +) == ignored.values.reduce(0, +), "every ignored packet is counted once")
    }

    @Test("every family is written with its reasons from zero")
    func families() {
        var statistics = UDPTransportServer.Statistics()
        statistics.connectedClients = 3
        statistics.datagramsReceived = 10
        statistics.bytesSent = 1200
        statistics.packetsIgnoredByReason = [.replay: 4]
        statistics.datagramsTooShort = 2
        statistics.connectionRequestsOverBudget = 5
        var writer = PrometheusWriter()
        statistics.writeMetrics(to: &writer)
        let text = writer.text
        for line in [
            "tickwire_udp_clients 3", "tickwire_udp_datagrams_received_total 10", "tickwire_udp_bytes_sent_total 1200",
            "tickwire_udp_datagrams_ignored_total{reason=\"replay\"} 4", "tickwire_udp_datagrams_ignored_total{reason=\"short\"} 2",
            "tickwire_udp_datagrams_ignored_total{reason=\"oversized\"} 0",
            "tickwire_udp_datagrams_ignored_total{reason=\"request_rate\"} 5",
            "tickwire_udp_datagrams_dropped_total{reason=\"send_failed\"} 0",
        ] {
            #expect(text.contains(line + "\n"), "missing '\(line)' in:\n\(text)")
        }
    }
}
