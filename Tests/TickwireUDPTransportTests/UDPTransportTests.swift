import Testing
import TickwireFoundation
import TickwireIO
import TickwireNetcode
import TickwirePacket
import TickwireSim

@testable import TickwireUDPTransport

@Suite("UDP transport over 127.0.0.1")
struct UDPTransportTests {
    /// Connects one UDP client to `fixture` and returns both ends once the server has accepted it.
    private func connect(_ fixture: UDPTestServer) throws -> (UDPClientTransportConnection, any TransportConnection) {
        let client = try UDPClientTransportConnection(token: fixture.token(clientID: 42))
        var accepted: [any TransportConnection] = []
        #expect(
            waitUntil {
                accepted += fixture.server.acceptPending(); return !accepted.isEmpty
            }, "the server should accept within 5 s")
        let peer = try #require(accepted.first)
        return (client, peer)
    }

    @Test("frames travel both ways on their channels, and the client's close code reaches the server after them")
    func framesAndClientClose() throws {
        let fixture = try UDPTestServer()
        defer { fixture.server.shutdown() }
        let (client, peer) = try connect(fixture)
        let server = try #require(peer as? UDPServerTransportConnection)
        #expect(server.clientID == 42, "the token's client id reaches the server connection")
        #expect(server.userData == Array(repeating: 7, count: Netcode.userDataBytes))
        #expect(!peer.deliversFramesInOrder && !client.deliversFramesInOrder, "UDP connections say frames may be lost or reordered")
        #expect(client.send([0x01, 1, 2, 3]) == .taken, "a hello-typed frame goes on the reliable channel")
        #expect(client.send([0x05, 9]) == .taken, "an input-typed frame goes on the unreliable channel")
        var received: [TransportEvent] = []
        #expect(
            waitUntil {
                received += peer.drain(); return received.count >= 2
            }, "both frames should arrive, got \(received)")
        #expect(Set(received) == [.frame([0x01, 1, 2, 3]), .frame([0x05, 9])])
        #expect(peer.send([0x02, 4, 5]) == .taken)
        var back: [TransportEvent] = []
        #expect(
            waitUntil {
                back += client.drain(); return !back.isEmpty
            }, "the welcome-typed frame should reach the client")
        #expect(back == [.frame([0x02, 4, 5])])

        #expect(client.send([0x40, 6]) == .taken, "an application frame goes reliably, just before the close")
        client.close(code: .normalClosure, reason: "leaving")  // waits for the close's ack (its own loop)
        #expect(client.send([0x40, 7]) == .closed, "a closed connection refuses frames")
        #expect(client.readiness(budgetBytes: .max) == .closed)
        var events: [TransportEvent] = []
        #expect(
            waitUntil {
                events += peer.drain(); return events.contains(where: \.isClosed)
            }, "the close should arrive within 5 s")
        #expect(
            events == [.frame([0x40, 6]), .closed(.closedByPeer(code: .normalClosure, text: "leaving"))],
            "the server should get the last frame, then the close code and text; got \(events)")
        #expect(peer.send([0x04, 1]) == .closed, "a server connection whose client closed refuses frames")
        #expect(waitUntil { fixture.server.statistics.connectedClients == 0 }, "netcode.io's disconnect should free the slot")
    }

    @Test("a close code with its text reaches a UDP client after the frames sent before it")
    func serverCloseCodeReachesClient() throws {
        let fixture = try UDPTestServer()
        defer { fixture.server.shutdown() }
        let (client, peer) = try connect(fixture)
        defer { client.close() }
        #expect(peer.send([0x03, 1, 2]) == .taken, "a reject-typed frame")
        peer.close(code: .roomFull, reason: "room 'play' holds its maximum of 2 clients")
        #expect(peer.isClosed && peer.send([0x40]) == .closed)
        var events: [TransportEvent] = []
        #expect(
            waitUntil {
                events += client.drain(); return events.contains(where: \.isClosed)
            }, "the close should arrive within 5 s")
        #expect(
            events == [.frame([0x03, 1, 2]), .closed(.closedByPeer(code: .roomFull, text: "room 'play' holds its maximum of 2 clients"))],
            "got \(events)")
        #expect(waitUntil { client.netcodeState == .disconnected }, "netcode.io's disconnect follows the close")
        #expect(waitUntil { fixture.server.statistics.connectedClients == 0 })
    }

    @Test("frames larger than one packet travel in fragments on both channels, byte for byte")
    func fragmentedFrames() throws {
        let fixture = try UDPTestServer()
        defer { fixture.server.shutdown() }
        let (client, peer) = try connect(fixture)
        defer { client.close() }
        var generator = SplitMix64(seed: 31)
        let reliable: [UInt8] = [0x02] + (0..<5_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        let snapshot: [UInt8] = [0x04] + (0..<20_000).map { _ in UInt8.random(in: 0...255, using: &generator) }
        #expect(peer.send(reliable) == .taken)
        var events: [TransportEvent] = []
        #expect(
            waitUntil {
                events += client.drain(); return !events.isEmpty
            }, "the 5 001-byte reliable frame should arrive")
        #expect(events == [.frame(reliable)])
        #expect(peer.send(snapshot) == .taken)
        events = []
        #expect(
            waitUntil {
                events += client.drain(); return !events.isEmpty
            }, "the 20 001-byte unreliable frame should arrive")
        #expect(events == [.frame(snapshot)], "a 20-fragment snapshot-typed frame arrives whole on loopback")
        #expect(waitUntil { client.statistics.packets.fragmentsReceived >= 5 + 20 }, "the loop publishes the fragments it counted")
        let statistics = client.statistics
        #expect(statistics.packetsRefused == 0)
    }

    @Test("a frame over the packet layer's message limit closes the connection with 1009 on both sides")
    func oversizedFrameCloses() throws {
        let fixture = try UDPTestServer()
        defer { fixture.server.shutdown() }
        let (client, peer) = try connect(fixture)
        defer { client.close() }
        let tooBig: [UInt8] = [0x04] + Array(repeating: 1, count: PacketLimits().maximumMessageBytes)
        #expect(peer.send(tooBig) == .taken, "the size is checked on the loop")
        var serverEvents: [TransportEvent] = []
        #expect(
            waitUntil {
                serverEvents += peer.drain(); return serverEvents.contains(where: \.isClosed)
            })
        guard case .closed(let local) = serverEvents.last else { return }
        #expect(local.code == .messageTooBig, "the server side hears why: \(local)")
        var clientEvents: [TransportEvent] = []
        #expect(
            waitUntil {
                clientEvents += client.drain(); return clientEvents.contains(where: \.isClosed)
            })
        guard case .closed(let remote) = clientEvents.last else { return }
        #expect(remote.code == .messageTooBig && remote.name == TransportCloseReason.closedByPeer(code: nil).name, "got \(remote)")
    }

    @Test("round-trip time, jitter, loss and the connection count are measured and sane on loopback")
    func statisticsAreSane() throws {
        let fixture = try UDPTestServer()
        defer { fixture.server.shutdown() }
        let (client, peer) = try connect(fixture)
        defer { client.close() }
        let server = try #require(peer as? UDPServerTransportConnection)
        #expect(client.send([0x01]) == .taken)
        _ = waitUntil { !peer.drain().isEmpty }
        // Inputs and snapshots both ways for a while, so that acks come back.
        let sampled = waitUntil {
            _ = client.send([0x05, 1])
            _ = peer.send([0x04, 2])
            _ = client.drain()
            _ = peer.drain()
            return client.statistics.roundTripSamples >= 10 && server.statistics.roundTripSamples >= 10
        }
        #expect(sampled, "both sides should take round-trip samples within 5 s")
        for (side, statistics) in [("client", client.statistics), ("server", server.statistics)] {
            #expect(statistics.roundTripTime > 0 && statistics.roundTripTime < 0.5, "\(side) RTT \(statistics.roundTripTime) s on loopback")
            #expect(statistics.jitter >= 0 && statistics.jitter < 0.5, "\(side) jitter \(statistics.jitter) s")
            #expect(statistics.packetLoss >= 0 && statistics.packetLoss <= 0.05, "\(side) loss \(statistics.packetLoss) on loopback")
            #expect(statistics.packets.packetsSent > 0 && statistics.packets.packetsReceived > 0)
        }
        #expect(fixture.server.statistics.connectedClients == 1)
        #expect(fixture.server.statistics.connectionsAccepted == 1)
        #expect(peer.bufferedBytes < 4_096, "nothing reliable waits long on loopback: \(peer.bufferedBytes) bytes")
        #expect(peer.readiness(budgetBytes: 1 << 20) == .taken)
    }

    @Test("a token sealed with another key never connects, and the wait for it is bounded")
    func invalidTokenNeverConnects() throws {
        let fixture = try UDPTestServer()
        defer { fixture.server.shutdown() }
        let client = try UDPClientTransportConnection(token: fixture.token(clientID: 1, key: NetcodeKey.random(), timeoutSeconds: 1))
        defer { client.close() }
        var events: [TransportEvent] = []
        #expect(
            waitUntil {
                events += client.drain(); return events.contains(where: \.isClosed)
            }, "the client should give up within 5 s")
        guard case .closed(let reason) = events.last else {
            Issue.record("expected a close, got \(events)")
            return
        }
        #expect(reason.name == "could not connect" && reason.code == nil, "got \(reason)")
        #expect(client.netcodeState == .connectionRequestTimedOut, "got \(client.netcodeState)")
        #expect(fixture.server.acceptPending().isEmpty, "the server never accepted the client")
        #expect(fixture.server.statistics.packetsIgnored > 0, "the server counted the requests it refused")
        #expect(client.send([0x01]) == .closed)
    }

    @Test("an expired token never connects: the server ignores its requests, and the client gives up at the token's timeout")
    func expiredTokenNeverConnects() throws {
        let fixture = try UDPTestServer()
        defer { fixture.server.shutdown() }
        let client = try UDPClientTransportConnection(token: fixture.token(clientID: 2, timeoutSeconds: 1, createdAgo: 60, lifetime: 30))
        defer { client.close() }
        var events: [TransportEvent] = []
        #expect(
            waitUntil {
                events += client.drain(); return events.contains(where: \.isClosed)
            }, "the client should give up within 5 s")
        #expect(client.netcodeState == .connectionRequestTimedOut, "got \(client.netcodeState)")
        #expect(fixture.server.acceptPending().isEmpty, "the server never accepted the client")
        #expect(fixture.server.statistics.packetsIgnored > 0, "the server counted the requests it refused")
    }

    @Test("a server bound to the wildcard names the loopback address with its port in tokens, unless told its public addresses")
    func wildcardPublicAddress() throws {
        let key = NetcodeKey.random()
        let server = try UDPTransportServer(
            configuration: UDPTransportServerConfiguration(address: requireAddress("0.0.0.0", 0), protocolID: 1, privateKey: key))
        defer { server.shutdown() }
        #expect(server.publicAddresses == [NetcodeAddress(ipv4: 127, 0, 0, 1, port: UInt16(server.address.port))])
        let named = try NetcodeAddress(parsing: "203.0.113.7:40000")
        let told = try UDPTransportServer(
            configuration: UDPTransportServerConfiguration(
                address: requireAddress("127.0.0.1", 0), publicAddresses: [named], protocolID: 1, privateKey: key))
        defer { told.shutdown() }
        #expect(told.publicAddresses == [named])
    }

    @Test("the channel of a frame follows its message type (PROTOCOL.md 1A.1)")
    func channelsByType() {
        for type: UInt8 in [0x01, 0x02, 0x03, 0x08, 0x40, 0x7F, 0x81, 0xC0] {
            #expect(PacketChannel(frame: [type, 0]) == .reliableOrdered, "type byte \(type)")
        }
        for type: UInt8 in [0x04, 0x05, 0x06, 0x07, 0x09, 0x84, 0x85] {
            #expect(PacketChannel(frame: [type, 0]) == .unreliable, "type byte \(type)")
        }
    }

    @Test("the close message round-trips, and malformed ones are refused")
    func closeMessage() throws {
        let close = UDPCloseMessage(code: .kicked, reason: "bye")
        #expect(close.encoded == [0x00, 0x0F, 0xA2] + Array("bye".utf8))
        #expect(UDPCloseMessage(decoding: close.encoded) == close)
        #expect(UDPCloseMessage(decoding: [0x00, 0x03]) == nil, "too short")
        #expect(UDPCloseMessage(decoding: [0x00, 0x00, 0x01]) == nil, "code 1 is outside 1000...4999")
        #expect(UDPCloseMessage(decoding: [0x00, 0x03, 0xE8, 0xFF]) == nil, "reason not UTF-8")
        let long = UDPCloseMessage(code: .normalClosure, reason: String(repeating: "é", count: 100))
        #expect(long.encoded.count == 3 + 122, "the reason is cut at a character boundary within 123 bytes")
    }
}
