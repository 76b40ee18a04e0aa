import Testing
import TickwireCodec
import TickwireFoundation
import TickwireSimTestSupport

@testable import TickwireSim

@Suite("Fleet routing: hosts on one room directory")
struct FleetRoutingTests {
    static let walk: @Sendable (UInt64) -> DotsGame.Input? = { tick in tick < 10 ? DotsGame.Input(dx: 1, dy: 0) : nil }

    @Test("clients entering room R through three different hosts all land on one host and see each other")
    func oneRoomOneHost() throws {
        let fleet = FleetHarness(hosts: 3)
        let clients = (0..<3).map { fleet.addClient(room: "r", entries: [$0], input: Self.walk) }
        let landed = fleet.run(until: { clients.allSatisfy { fleet.host(of: $0) != nil } }, within: .seconds(3))
        #expect(landed, "every client is connected within 3 s: \(clients.map { fleet.clients[$0].state })")
        let holder = try #require(fleet.holder(of: "r"), "the store names a holder of room r")
        #expect(clients.allSatisfy { fleet.host(of: $0) == holder }, "every client is on the holder, host \(holder)")
        #expect(fleet.hosts.indices.filter { fleet.hosts[$0].room(named: "r") != nil } == [holder], "only the holder runs room r")
        #expect(clients.map { fleet.clients[$0].redirectsFollowed }.reduce(0, +) == 2, "two of the three were redirected, once each")
        fleet.run(for: .seconds(1))
        let ids = Set(clients.compactMap { fleet.clients[$0].session.clientID })
        #expect(ids.count == 3, "three distinct players")
        for client in clients {
            let snapshot = fleet.clients[client].session.latestSnapshot
            let seen = Set((0..<(snapshot?.count ?? 0)).compactMap { snapshot?.id(at: $0) }.filter { $0 < DotsGame.orbBase })
            #expect(seen == ids, "client \(client) sees all three players, not \(seen)")
        }
    }

    @Test("rooms entered through different hosts spread over the hosts")
    func roomsSpread() throws {
        let fleet = FleetHarness(hosts: 3)
        for (index, room) in ["a", "b", "c"].enumerated() { fleet.addClient(room: room, entries: [index]) }
        fleet.run(for: .seconds(1))
        let holders = ["a", "b", "c"].map { fleet.holder(of: $0) }
        #expect(holders == [0, 1, 2], "each room is held by the host its first client entered through: \(holders)")
        #expect(fleet.store.reportedRooms(of: "host-1").map(\.name) == ["b"], "host 1 reports its one room to the directory")
    }

    @Test("a client sent to the wrong host is redirected once and lands on the holder")
    func oneHopRedirect() throws {
        let fleet = FleetHarness(hosts: 2)
        fleet.addClient(room: "r", entries: [0])
        fleet.run(for: .milliseconds(300))
        let late = fleet.addClient(room: "r", entries: [1])
        #expect(fleet.run(until: { fleet.host(of: late) == 0 }, within: .seconds(1)), "the late client lands on host 0")
        #expect(fleet.clients[late].redirectsFollowed == 1)
        #expect(fleet.hosts[1].rejections[.redirect] == 1, "host 1 redirected it once")
        #expect(fleet.hosts[1].fleetMetrics.redirects == 1)
    }

    @Test("a redirect loop gives up after maximumRedirects hops with a RedirectError naming the URLs")
    func redirectLoop() throws {
        let fleet = FleetHarness(hosts: 2, directory: { index in RedirectingDirectory(url: FleetHarness.url(1 - index)) })
        let client = fleet.addClient(room: "r", entries: [0])
        fleet.run(for: .seconds(2))
        let session = fleet.clients[client]
        guard case .refused(let reason, let text) = session.state else {
            Issue.record("the client must stop, refused, not \(session.state)")
            return
        }
        #expect(reason == .redirect)
        let error = try #require(session.redirectError, "the session says why it stopped")
        #expect(error.urls.count == ReconnectingSession<DotsGame>.defaultMaximumRedirects + 1, "three hops followed, the fourth refused")
        #expect(text.contains("gave up after 3 redirects"), "the words say what happened: \(text)")
        #expect(session.redirectsFollowed == 3)
    }

    @Test("killing the holder: after the claim's TTL the clients come back through their entries on another host, same ids and players")
    func killHolder() throws {
        let fleet = FleetHarness(hosts: 3)
        let clients = [fleet.addClient(room: "r", entries: [0, 1, 2], input: Self.walk), fleet.addClient(room: "r", entries: [1, 2, 0])]
        #expect(fleet.run(until: { clients.allSatisfy { fleet.host(of: $0) == 0 } }, within: .seconds(2)), "both land on host 0")
        fleet.run(for: .seconds(2))  // the walk is over and a save has happened since
        let ids = clients.map { fleet.clients[$0].session.clientID }
        let room = try #require(fleet.hosts[0].room(named: "r"))
        let players = room.state.players
        #expect(players.count == 2)

        fleet.kill(0)
        let back = fleet.run(until: { clients.allSatisfy { (fleet.host(of: $0) ?? 0) != 0 } }, within: .seconds(10))
        #expect(back, "both clients are back within 10 s: \(clients.map { fleet.clients[$0].state })")
        let holder = try #require(fleet.holder(of: "r"))
        #expect(holder != 0, "another host holds room r")
        #expect(clients.allSatisfy { fleet.host(of: $0) == holder }, "both are on the new holder")
        #expect(clients.map { fleet.clients[$0].session.clientID } == ids, "each client has its own id back")
        #expect(clients.allSatisfy { fleet.clients[$0].session.wasResumed }, "both resumed their sessions")
        let restored = try #require(fleet.hosts[holder].room(named: "r"))
        #expect(restored.state.players == players, "the restored world holds each player where it was")
        #expect(fleet.hosts[holder].fleetMetrics.roomsRestored == 1)
    }

    @Test("killing the holder: a token-bearing player restored from the directory resumes with its identity, and its resume event names it")
    func killHolderKeepsIdentity() throws {
        let fleet = FleetHarness(hosts: 2) { $0.tokenVerifier = HostTokenTests.PlainVerifier() }
        var events: [HostEvent] = []
        fleet.hosts[1].onEvent = { events.append($0) }
        let client = fleet.addClient(room: "r", entries: [0, 1], connectToken: HostTokenTests.token(user: 9, room: "r", tag: 1))
        #expect(fleet.run(until: { fleet.host(of: client) == 0 }, within: .seconds(2)), "the client lands on host 0")
        fleet.run(for: .seconds(2))  // a save has happened since
        let id = try #require(fleet.clients[client].session.clientID, "the client was welcomed")
        #expect(fleet.hosts[0].room(named: "r")?.clients[id]?.identity?.userID == 9, "host 0 knows the player as user 9")

        fleet.kill(0)
        #expect(fleet.run(until: { fleet.host(of: client) == 1 }, within: .seconds(10)), "the client is back on host 1")
        #expect(fleet.clients[client].session.wasResumed && fleet.clients[client].session.clientID == id, "it resumed its session")
        #expect(fleet.hosts[1].room(named: "r")?.clients[id]?.identity?.userID == 9, "host 1 restored the player's identity")
        let resumed = events.first { $0.kind == .resumed }
        #expect(resumed?.clientID == id && resumed?.identity?.userID == 9, "the resume event names user 9: \(events)")
        fleet.run(for: .milliseconds(1500))  // a report has happened since
        let report = fleet.store.reportedRooms(of: "host-1").first { $0.name == "r" }
        #expect(report?.players == ["9"], "host 1's report to the matchmaker names user 9: \(String(describing: report))")
    }

    @Test("drain moves every client at once, without waiting for the claim's TTL, with the same ids")
    func drainMovesAtOnce() throws {
        let fleet = FleetHarness(hosts: 3)
        let clients = [fleet.addClient(room: "r", entries: [0], input: Self.walk), fleet.addClient(room: "r", entries: [0])]
        #expect(fleet.run(until: { clients.allSatisfy { fleet.host(of: $0) == 0 } }, within: .seconds(2)))
        fleet.run(for: .seconds(1))
        let ids = clients.map { fleet.clients[$0].session.clientID }
        let players = fleet.hosts[0].room(named: "r")?.state.players

        fleet.hosts[0].drain()
        #expect(fleet.store.holder(ofRoom: "r") == nil, "the drained host released its claim")
        let moved = fleet.run(until: { clients.allSatisfy { (fleet.host(of: $0) ?? 0) != 0 } }, within: .milliseconds(500))
        #expect(moved, "both clients are on another host within 0.5 s (the TTL is 3 s)")
        let holder = try #require(fleet.holder(of: "r"))
        #expect(clients.allSatisfy { fleet.host(of: $0) == holder })
        #expect(clients.map { fleet.clients[$0].session.clientID } == ids, "each client has its own id back")
        #expect(clients.allSatisfy { fleet.clients[$0].movesFollowed == 1 })
        #expect(fleet.hosts[holder].room(named: "r")?.state.players == players, "every player is where it was")
        // The drained host's figures, as /metrics writes them.
        #expect(fleet.hosts[0].fleetMetrics.drains == 1 && fleet.hosts[0].fleetMetrics.clientsMoved == 2)
        let published = try #require(fleet.hosts[0].publishedMetrics.latest.fleet, "a host with a directory publishes its fleet figures")
        #expect(published.drains == 1 && published.roomsClaimed == 1)
        var writer = PrometheusWriter()
        fleet.hosts[0].publishedMetrics.latest.writeMetrics(to: &writer)
        #expect(PrometheusText.value("tickwire_fleet_drains_total", in: writer.text) == 1)
        #expect(PrometheusText.value("tickwire_fleet_clients_moved_total", in: writer.text) == 2)
        #expect(PrometheusText.value("tickwire_fleet_rooms_claimed_total", in: writer.text) == 1)
    }

    @Test("a partition: the room is claimed twice, the partitioned host loses it on healing and its clients follow")
    func partitionResolvesToOne() throws {
        let fleet = FleetHarness(hosts: 2)
        let first = fleet.addClient(room: "r", entries: [0])
        #expect(fleet.run(until: { fleet.host(of: first) == 0 }, within: .seconds(1)))
        fleet.run(for: .seconds(1))
        let firstID = fleet.clients[first].session.clientID

        fleet.store.partition(process: "host-0")
        fleet.run(for: .seconds(4))  // the claim expires; host 0 plays on, standalone
        #expect(fleet.host(of: first) == 0, "the room plays on on the partitioned host")
        let second = fleet.addClient(room: "r", entries: [1])
        #expect(fleet.run(until: { fleet.host(of: second) == 1 }, within: .seconds(1)), "host 1 claims the expired room")
        #expect(fleet.hosts[0].room(named: "r") != nil && fleet.hosts[1].room(named: "r") != nil, "two hosts run room r")

        fleet.store.heal(process: "host-0")
        let resolved = fleet.run(
            until: { fleet.hosts[0].room(named: "r") == nil && fleet.host(of: first) == 1 }, within: .seconds(2))
        #expect(resolved, "host 0 closed its copy and its client followed to host 1: \(fleet.clients[first].state)")
        #expect(fleet.hosts[0].fleetMetrics.roomsLost == 1)
        #expect(fleet.clients[first].session.clientID == firstID, "the client resumed its own player on host 1")
        #expect(fleet.holder(of: "r") == 1)
    }

    @Test("the directory unreachable at the start: the host runs the room standalone and play goes on")
    func unavailableAtStart() throws {
        let fleet = FleetHarness(hosts: 2)
        fleet.store.partition(process: "host-0")
        let client = fleet.addClient(room: "r", entries: [0])
        #expect(fleet.run(until: { fleet.host(of: client) == 0 }, within: .seconds(1)), "the client plays on host 0")
        #expect(fleet.hosts[0].fleetMetrics.standaloneRooms == 1)
        #expect(fleet.store.holder(ofRoom: "r") == nil, "no claim was made")
        #expect(fleet.store.savedState(ofRoom: "r") == nil, "a standalone room is not saved")
    }

    @Test("a pending placement keeps the hello waiting until the directory answers")
    func pendingPlacement() throws {
        let fleet = FleetHarness(hosts: 1, answerDelay: .milliseconds(400))
        let client = fleet.addClient(room: "r", entries: [0])
        fleet.run(for: .milliseconds(300))
        #expect(fleet.host(of: client) == nil, "no welcome while the placement is pending")
        #expect(fleet.run(until: { fleet.host(of: client) == 0 }, within: .seconds(1)), "welcomed once the directory answers")
        #expect(fleet.clients[client].failedAttempts == 0, "the first attempt waited, it did not fail")
    }

    @Test("a room closing when idle is saved and released; a later hello restores it")
    func idleRoomReleases() throws {
        let fleet = FleetHarness(hosts: 1)
        let client = fleet.addClient(room: "r", entries: [0], input: Self.walk)
        #expect(fleet.run(until: { fleet.host(of: client) == 0 }, within: .seconds(1)))
        fleet.run(for: .seconds(1))
        fleet.clients[client].leave()
        fleet.run(for: .seconds(32))
        #expect(fleet.hosts[0].room(named: "r") == nil, "the idle room closed")
        #expect(fleet.store.holder(ofRoom: "r") == nil, "its claim was released")
        #expect(fleet.store.savedState(ofRoom: "r") != nil, "its last state was saved")
    }

    @Test("a chain of exactly maximumRedirects (3) redirects lands; one more hop gives up", arguments: [3, 4])
    func redirectChainLimit(hops: Int) throws {
        // Hosts 0..<hops redirect to the next one; host `hops` holds the room.
        let fleet = FleetHarness(
            hosts: hops + 1, directory: { index in index < hops ? RedirectingDirectory(url: FleetHarness.url(index + 1)) : nil })
        let client = fleet.addClient(room: "r", entries: [0])
        fleet.run(for: .seconds(1))
        if hops <= ReconnectingSession<DotsGame>.defaultMaximumRedirects {
            #expect(
                fleet.host(of: client) == hops, "after \(hops) redirects the client plays on host \(hops): \(fleet.clients[client].state)")
        } else {
            #expect(fleet.clients[client].redirectError != nil, "\(hops) redirects in a row are one too many")
            #expect(fleet.host(of: client) == nil)
        }
    }

    @Test("a room state over roomStateLimits.maximumBytes is not saved, and counted")
    func oversizedStateNotSaved() throws {
        let fleet = FleetHarness(hosts: 1, configure: { $0.roomStateLimits.maximumBytes = 64 })
        let client = fleet.addClient(room: "r", entries: [0])
        #expect(fleet.run(until: { fleet.host(of: client) == 0 }, within: .seconds(1)))
        fleet.run(for: .seconds(2))
        #expect(fleet.store.savedState(ofRoom: "r") == nil, "nothing over 64 bytes reaches the directory")
        #expect(fleet.hosts[0].fleetMetrics.statesTooLarge >= 2, "each refused save is counted")
    }
}
