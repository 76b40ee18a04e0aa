import Foundation
import Synchronization
import Testing
import Tickwire

@testable import ArenaGame

/// Two `ArenaServer`s on 127.0.0.1 sharing an in-memory room directory, and a real WebSocket
/// client: a redirect and a drain over real sockets.
@Suite("Arena fleet over WebSocket (Directory)")
struct ArenaFleetTests {
    /// A server on its own thread: its port once it listens, and the flag that stops it.
    final class RunningServer: Sendable {
        let stop = ServerStopRequest()
        let port = Mutex<Int?>(nil)
        let finished = Atomic<Bool>(false)

        init(directory: any RoomDirectory) {
            var options = ArenaServer.Options()
            options.port = 0
            options.bots = 0
            options.tickRate = 20
            options.tickThreads = 1
            options.statsInterval = 0
            options.servesWebClient = false
            let settings = options
            Thread { [self] in
                defer { finished.store(true, ordering: .releasing) }
                guard let server = try? ArenaServer(options: settings, stopRequest: stop, directory: directory) else { return }
                port.withLock { $0 = server.port }
                server.run()
            }.start()
        }

        /// Waits (at most 5 s) for the server to listen.
        func waitForPort() -> Int? {
            for _ in 0..<500 {
                if let port = port.withLock({ $0 }) { return port }
                usleep(10_000)
            }
            return nil
        }

        /// Stops the server and waits (at most 5 s) for it to finish.
        func shutdown() {
            stop.requestStop()
            for _ in 0..<500 where !finished.load(ordering: .acquiring) { usleep(10_000) }
        }
    }

    /// Ticks the client every 10 ms until `condition` holds, for `seconds` at most.
    func play(_ client: ArenaClient, seconds: Double, until condition: () -> Bool) -> Bool {
        let start = Date()
        while !condition() && Date().timeIntervalSince(start) < seconds {
            client.tick(input: ArenaInput(moveX: 0, moveY: 0, fires: false))
            usleep(10_000)
        }
        return condition()
    }

    @Test("a client entering through the wrong server is redirected to the room's server; a drain moves it to the other at once, same id")
    func redirectAndDrain() throws {
        let store = InMemoryDirectoryStore(clock: MonotonicClock(), claimTTL: .seconds(3))
        let a = RunningServer(directory: store.directory(forProcess: "a", publicURL: ""))
        let b = RunningServer(directory: store.directory(forProcess: "b", publicURL: ""))
        defer {
            a.shutdown()
            b.shutdown()
        }
        let portA = try #require(a.waitForPort(), "server a did not start")
        let portB = try #require(b.waitForPort(), "server b did not start")
        _ = store.directory(forProcess: "a", publicURL: "ws://127.0.0.1:\(portA)")
        _ = store.directory(forProcess: "b", publicURL: "ws://127.0.0.1:\(portB)")
        #expect(store.directory(forProcess: "a", publicURL: "ws://127.0.0.1:\(portA)").placement(ofRoom: "main") == .here(savedState: nil))

        let client = ArenaClient(options: ArenaClient.Options(url: try WebSocketURL("ws://127.0.0.1:\(portB)/main"), name: "ann"))
        #expect(play(client, seconds: 5) { client.connection.state == .connected(resumed: false) }, "\(client.connection.state)")
        #expect(client.connection.redirectsFollowed == 1, "b redirected the client to a")
        #expect(client.connection.currentURL == "ws://127.0.0.1:\(portA)")
        let id = client.session.clientID

        let drainStart = Date()
        a.stop.requestStop()
        let moved = play(client, seconds: 5) {
            client.connection.movesFollowed == 1 && client.connection.state == .connected(resumed: true)
        }
        #expect(moved, "the drained client is back, resumed: \(client.connection.state), \(client.connection.lastFailure ?? "")")
        #expect(Date().timeIntervalSince(drainStart) < 2, "within 2 s of the drain (the claim's TTL is 3 s)")
        #expect(client.connection.currentURL == "ws://127.0.0.1:\(portB)", "on server b")
        #expect(client.session.clientID == id, "with its own id")
        client.leave()
    }
}
