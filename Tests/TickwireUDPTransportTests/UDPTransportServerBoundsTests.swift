import Synchronization
import Testing
import TickwireFoundation
import TickwireIO
import TickwireNetcode

@testable import TickwireUDPTransport

/// The datagrams a raw sender received, counted from its loop thread.
private final class ReplyCount: Sendable {
    let count = Mutex(0)
}

/// A UDP socket on 127.0.0.1 of its own loop, sending raw datagrams and counting the replies.
private struct RawSender {
    let loop: EventLoop
    let channel: UDPChannel
    let replies = ReplyCount()

    init() throws {
        loop = try EventLoop()
        try loop.start()
        let address = try requireAddress("127.0.0.1", 0)
        let replies = self.replies
        let loop = self.loop
        let opened = loop.runAndWait { () -> Result<UDPChannel, SystemError> in
            Result { () throws(SystemError) -> UDPChannel in
                try UDPChannel(address: address, loop: loop) { _, _ in replies.count.withLock { $0 += 1 } }
            }
        }
        channel = try #require(opened, "the loop ran the set-up").get()
    }

    func send(_ bytes: [UInt8], to server: UDPTransportServer) -> Bool { channel.send(bytes, to: server.address) }

    func stop() {
        channel.close()
        loop.stop()
    }
}

@Suite("UDPTransportServer bounds")
struct UDPTransportServerBoundsTests {
    private func request(_ token: ConnectToken) throws -> [UInt8] {
        try NetcodePacket.connectionRequest(
            NetcodePacket.ConnectionRequest(
                protocolID: token.protocolID, expireTimestamp: token.expireTimestamp, nonce: token.nonce,
                encryptedPrivateData: token.encryptedPrivateData)
        ).written(sequence: 0, key: token.clientToServerKey, protocolID: token.protocolID)
    }

    @Test("a host's connection requests up to the budget are each challenged; one past it is dropped unread and counted")
    func requestBudgetAtTheLimitAndOnePast() throws {
        var limits = UDPTransportLimits()
        limits.connectionRequestsPerAddressPerSecond = 3
        let fixture = try UDPTestServer(limits: limits)
        defer { fixture.server.shutdown() }
        let sender = try RawSender()
        defer { sender.stop() }
        let request = try request(try fixture.token(clientID: 1))
        for _ in 1...3 { #expect(sender.send(request, to: fixture.server)) }
        #expect(waitUntil { sender.replies.count.withLock { $0 } == 3 }, "3 requests, at the budget of 3, drew 3 challenges")
        #expect(fixture.server.statistics.connectionRequestsOverBudget == 0)
        #expect(sender.send(request, to: fixture.server))
        #expect(waitUntil { fixture.server.statistics.connectionRequestsOverBudget == 1 }, "the 4th request is counted over the budget")
        #expect(sender.replies.count.withLock { $0 } == 3, "and draws no challenge")
    }

    @Test("datagrams shorter or longer than any netcode.io packet are dropped unread and counted")
    func shortAndOversized() throws {
        let fixture = try UDPTestServer()
        defer { fixture.server.shutdown() }
        let sender = try RawSender()
        defer { sender.stop() }
        for size in [1, Netcode.minEncryptedPacketBytes - 1] { #expect(sender.send(Array(repeating: 3, count: size), to: fixture.server)) }
        for size in [Netcode.maxDatagramBytes + 1, 1500] { #expect(sender.send(Array(repeating: 3, count: size), to: fixture.server)) }
        #expect(
            waitUntil {
                let statistics = fixture.server.statistics
                return statistics.datagramsTooShort == 2 && statistics.datagramsTooLarge == 2
            }, "2 short and 2 oversized counted: \(fixture.server.statistics)")
        #expect(fixture.server.statistics.packetsIgnored == 0, "none reached netcode.io")
        #expect(sender.replies.count.withLock { $0 } == 0)
    }
}
