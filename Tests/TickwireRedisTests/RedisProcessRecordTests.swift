import Testing
import TickwireRedisTestSupport
import TickwireSim

@testable import TickwireRedis

@Suite("Redis process record")
struct RedisProcessRecordTests {
    @Test("the record carries the UDP address as its `udp` field, and a record without one still reads")
    func udpField() throws {
        let record = RedisProcessRecord(
            id: "a", url: "ws://10.0.0.7:7777", udp: "udp://10.0.0.7:7778", loads: [RoomLoad(name: "main", clients: 2, capacity: 32)])
        let text = String(decoding: record.encoded, as: UTF8.self)
        #expect(text.contains("\"udp\":\"udp://10.0.0.7:7778\""), "the field as RunningAFleet documents it: \(text)")
        #expect(RedisProcessRecord.decode(record.encoded) == record)
        let old = #"{"id":"b","rooms":[{"capacity":32,"clients":1,"name":"main"}],"url":"ws://10.0.0.8:7777"}"#
        let decoded = try #require(RedisProcessRecord.decode(Array(old.utf8)), "a record of an earlier version, without udp, must read")
        #expect(decoded.udp == nil && decoded.url == "ws://10.0.0.8:7777" && decoded.clients == 1)
        let withoutUDP = String(decoding: RedisProcessRecord(id: "c", url: "ws://x:1", loads: []).encoded, as: UTF8.self)
        #expect(!withoutUDP.contains("udp"), "a process without UDP writes no udp field: \(withoutUDP)")
    }

    @Test("a process learns the other processes' UDP addresses from their registrations and claim answers")
    func udpAddressesAcrossProcesses() throws {
        let server = try RedisServerProcess()
        let configuration = RedisDirectoryConfiguration(
            url: server.url, publicURL: "ws://a.test:4000", publicUDPURL: "udp://127.0.0.1:4001", keyPrefix: "u1", processID: "a",
            heartbeatInterval: .milliseconds(100), claimTTL: .milliseconds(500))
        let a = try RedisRoomDirectory(configuration: configuration)
        let b = try connectedDirectory(server, name: "b", prefix: "u1")
        defer {
            a.stop()
            b.stop()
        }
        #expect(eventually(within: 5) { a.isConnected })
        #expect(settledPlacement(a, "room") == .here(savedState: nil))
        #expect(settledPlacement(b, "room") == .elsewhere(url: "ws://a.test:4000"))
        #expect(b.udpURL(ofProcessAt: "ws://a.test:4000") == "udp://127.0.0.1:4001", "the claim answer carries a's UDP address")
        #expect(
            eventually(within: 3) { a.anotherProcessURL() == "ws://b.test:4000" && b.udpURL(ofProcessAt: "ws://a.test:4000") != nil },
            "the heartbeats read each other's registrations")
        #expect(a.udpURL(ofProcessAt: "ws://b.test:4000") == nil, "b registered no UDP address")
    }
}
