import TickwireCodec
import TickwireFoundation
import TickwireSimTestSupport

@testable import TickwireSim

/// A fleet of hosts on one virtual clock and one ``InMemoryDirectoryStore``, each host on its
/// own simulated network at the URL `sim://host-N`, and reconnecting clients that enter through
/// entry URLs: the multi-process counterpart of ``TickSimulation`` for the fleet tests.
final class FleetHarness {
    let clock = VirtualClock()
    let store: InMemoryDirectoryStore
    let game = DotsGame(orbCount: 2)
    private(set) var hosts: [Host<DotsGame>] = []
    private(set) var networks: [SimulatedNetwork] = []
    private(set) var directories: [any RoomDirectory] = []
    private(set) var isDown: [Bool] = []
    private(set) var clients: [ReconnectingSession<DotsGame>] = []
    /// Each client's current connection and the host it leads to.
    private var links: [(host: Int, connection: SimulatedConnection)?] = []
    private var inputs: [(UInt64) -> DotsGame.Input?] = []
    private var clientTick: UInt64 = 0
    private var nextClientTick = Timestamp.zero
    static let policy = ReconnectPolicy(baseDelay: .milliseconds(200), maximumDelay: .milliseconds(1000), jitter: 0.5)

    /// - Parameters:
    ///   - count: How many hosts.
    ///   - directory: A test double in place of each host's in-memory directory view, by index.
    init(
        hosts count: Int, claimTTL: Duration = .seconds(3), answerDelay: Duration = .zero,
        configure: (inout HostConfiguration) -> Void = { _ in }, directory: ((Int) -> (any RoomDirectory)?)? = nil
    ) {
        store = InMemoryDirectoryStore(clock: clock, claimTTL: claimTTL, answerDelay: answerDelay)
        for index in 0..<count {
            let network = SimulatedNetwork(clock: clock, seed: UInt64(index + 1))
            let view = directory?(index) ?? store.directory(forProcess: "host-\(index)", publicURL: Self.url(index))
            var configuration = HostConfiguration()
            configuration.createsRoomsOnDemand = true
            configuration.tokenSeed = UInt64(index + 1) * 0x9E37_79B9
            configuration.resumeGracePeriod = .seconds(15)
            configure(&configuration)
            let host = Host(game: game, listener: network, clock: clock, configuration: configuration, directory: view)
            hosts.append(host)
            networks.append(network)
            directories.append(view)
            isDown.append(false)
        }
    }

    static func url(_ index: Int) -> String { "sim://host-\(index)" }

    static func index(of url: String) -> Int? {
        guard url.hasPrefix("sim://host-") else { return nil }
        return Int(url.dropFirst("sim://host-".count))
    }

    /// Adds a client of `room` that enters through the hosts `entries`, in order, joining with
    /// `connectToken` when one is given.
    @discardableResult
    func addClient(
        room: String, entries: [Int], connectToken: Message.Hello.ConnectToken? = nil,
        input: @escaping (UInt64) -> DotsGame.Input? = { _ in nil }
    ) -> Int {
        var configuration = ClientConfiguration()
        configuration.room = room
        configuration.connectToken = connectToken
        let index = clients.count
        let networks = self.networks
        let client = ReconnectingSession(
            game: game, clock: clock, configuration: configuration, entryURLs: entries.map(Self.url), policy: Self.policy,
            seed: UInt64(index + 7)
        ) { [weak self] url in
            guard let host = Self.index(of: url), host < networks.count else { throw FleetHarnessError(url: url) }
            let connection = networks[host].connect()
            self?.links[index] = (host, connection)
            return connection
        }
        clients.append(client)
        links.append(nil)
        inputs.append(input)
        client.start()
        return index
    }

    /// The host a client is connected to now, if it is connected.
    func host(of client: Int) -> Int? {
        guard case .connected = clients[client].state else { return nil }
        return links[client]?.host
    }

    /// The process's host index holding `room` in the store.
    func holder(of room: String) -> Int? {
        store.holder(ofRoom: room).flatMap { Int($0.dropFirst("host-".count)) }
    }

    /// Kills host `index` like SIGKILL: it stops, its connections are cut, new ones are refused.
    func kill(_ index: Int) {
        store.kill(process: "host-\(index)")
        isDown[index] = true
        networks[index].isAcceptingConnections = false
        for link in links { if let link, link.host == index { link.connection.disconnect() } }
    }

    /// Runs every live host and every client for `duration`, in 1 ms steps.
    func run(for duration: Duration) {
        let end = clock.now + duration
        while clock.now < end { step() }
    }

    /// Runs until `condition` holds, for `limit` at most; returns whether it came true.
    @discardableResult
    func run(until condition: () -> Bool, within limit: Duration) -> Bool {
        let end = clock.now + limit
        while !condition() && clock.now < end { step() }
        return condition()
    }

    private func step() {
        for (index, host) in hosts.enumerated() where !isDown[index] { host.advance() }
        if clock.now >= nextClientTick {
            for (index, client) in clients.enumerated() {
                client.tick(input: inputs[index](clientTick))
                _ = client.render()
            }
            clientTick += 1
            nextClientTick = nextClientTick + .milliseconds(50)
        }
        clock.advance(by: .milliseconds(1))
    }
}

struct FleetHarnessError: Error {
    let url: String
}

/// A directory that always sends rooms to another process: `url` (a redirect loop when two
/// hosts point at each other).
final class RedirectingDirectory: RoomDirectory {
    let url: String

    init(url: String) {
        self.url = url
    }

    func placement(ofRoom room: String) -> RoomPlacement { .elsewhere(url: url) }
    func report(rooms: [RoomLoad]) {}
    func save(room: String, state: [UInt8]) {}
    func release(room: String) {}
    func takeLostRooms() -> [String] { [] }
    func anotherProcessURL() -> String? { nil }
}
