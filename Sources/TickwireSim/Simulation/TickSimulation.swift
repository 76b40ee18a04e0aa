import TickwireFoundation

/// A whole networked game on one thread and a virtual clock: a ``Host`` and any number of
/// ``ClientSession``s joined by a seeded ``SimulatedNetwork``, stepped a millisecond at a
/// time. The same seed gives the same run, byte for byte, so tests can assert what
/// players see under latency, jitter, loss, stalls and disconnects.
///
/// Clients tick at the host's rate and render at 60 frames per second.
///
/// ```swift
/// let simulation = TickSimulation(game: MyGame(), seed: 7)
/// let alice = simulation.addClient(downstream: LinkConditions(latency: .milliseconds(80)),
///                                   input: { _, tick in MyGame.Input(moveRight: tick < 30) })
/// simulation.run(for: .seconds(2))
/// let view = simulation.clients[alice].render()
/// ```
///
/// Not thread-safe: one thread drives it.
public final class TickSimulation<G: Game> {
    /// The clock everything runs on; ``run(for:)`` advances it.
    public let clock = VirtualClock()
    /// The simulated network between the host and the clients.
    public let network: SimulatedNetwork
    /// The host (a new one after ``restartHost(restoring:)``).
    public private(set) var host: Host<G>
    /// The game.
    public let game: G
    /// The clients, in the order they were added.
    public private(set) var clients: [ClientSession<G>] = []
    /// Each client's current connection.
    public private(set) var connections: [SimulatedConnection] = []
    /// Each client's input source: `(client index, client tick) -> input`.
    public private(set) var inputs: [(Int, UInt64) -> G.Input?] = []
    /// The clients added with ``addReconnectingClient(upstream:downstream:policy:seed:configure:game:input:)``,
    /// by index; ``clients`` holds the ``ReconnectingSession/session`` inside each.
    public private(set) var reconnectingClients: [Int: ReconnectingSession<G>] = [:]
    /// Whether the server process is down (``takeHostDown()``) until the next ``restartHost(restoring:)``.
    public private(set) var isHostDown = false
    /// Called after every rendered frame with the client index and its view.
    public var onFrame: ((Int, WorldView) -> Void)?
    /// Called after every host step (1 ms).
    public var onStep: (() -> Void)?
    private var clientTick: UInt64 = 0
    private var nextClientTick = Timestamp.zero
    private var nextFrame = Timestamp.zero

    /// Creates a host on a fresh simulated network.
    ///
    /// - Parameters:
    ///   - game: The game.
    ///   - seed: Fixes the network's randomness and the host's resume tokens.
    ///   - configure: Adjusts the host's configuration.
    public init(game: G, seed: UInt64 = 1, configure: (inout HostConfiguration) -> Void = { _ in }) {
        self.game = game
        network = SimulatedNetwork(clock: clock, seed: seed)
        var configuration = HostConfiguration()
        configuration.tokenSeed = seed
        configure(&configuration)
        host = Host(game: game, listener: network, clock: clock, configuration: configuration)
    }

    /// The first room the host opened (with the default configuration, the room named "").
    ///
    /// - Precondition: The host has a room: ``HostConfiguration/rooms`` names at least one, or
    ///   a client has opened one on demand. Asking a roomless host for its room is a mistake in
    ///   the test that drives the simulation, so it stops there rather than return an optional
    ///   every test would unwrap.
    public var room: Room<G> {
        guard let name = host.roomNames.first, let room = host.room(named: name) else {
            preconditionFailure("the host has no room: configure at least one in HostConfiguration.rooms")
        }
        return room
    }

    /// Adds a client that connects at once.
    ///
    /// - Parameters:
    ///   - upstream: The client-to-host link.
    ///   - downstream: The host-to-client link.
    ///   - configure: Adjusts the client's configuration.
    ///   - clientGame: The client's game, when it differs from the host's (to test mismatches).
    ///   - input: The client's input each client tick.
    /// - Returns: The client's index in ``clients``.
    @discardableResult
    public func addClient(
        upstream: LinkConditions = .perfect, downstream: LinkConditions = .perfect,
        configure: (inout ClientConfiguration) -> Void = { _ in },
        game clientGame: G? = nil,
        input: @escaping (Int, UInt64) -> G.Input? = { _, _ in nil }
    ) -> Int {
        var configuration = ClientConfiguration()
        configure(&configuration)
        let client = ClientSession(game: clientGame ?? game, clock: clock, configuration: configuration)
        let connection = network.connect(upstream: upstream, downstream: downstream)
        client.connect(over: connection)
        clients.append(client)
        connections.append(connection)
        inputs.append(input)
        return clients.count - 1
    }

    /// Adds a client that keeps itself connected: a ``ReconnectingSession`` whose connections
    /// open on the simulated network with the links given. It opens its first one at once;
    /// ``connections`` follows the newest.
    ///
    /// - Parameters:
    ///   - upstream: The client-to-host link of every connection it opens.
    ///   - downstream: The host-to-client link of every connection it opens.
    ///   - policy: Backoff between attempts.
    ///   - seed: Seeds the backoff's jitter.
    ///   - configure: Adjusts the client's configuration.
    ///   - clientGame: The client's game, when it differs from the host's (to test mismatches).
    ///   - input: The client's input each client tick.
    /// - Returns: The client's index in ``clients`` and ``reconnectingClients``.
    @discardableResult
    public func addReconnectingClient(
        upstream: LinkConditions = .perfect, downstream: LinkConditions = .perfect,
        policy: ReconnectPolicy = ReconnectPolicy(), seed: UInt64 = 1,
        configure: (inout ClientConfiguration) -> Void = { _ in },
        game clientGame: G? = nil,
        input: @escaping (Int, UInt64) -> G.Input? = { _, _ in nil }
    ) -> Int {
        var configuration = ClientConfiguration()
        configure(&configuration)
        let index = clients.count
        let network = self.network
        let client = ReconnectingSession(
            game: clientGame ?? game, clock: clock, configuration: configuration, policy: policy, seed: seed
        ) { [weak self] in
            let connection = network.connect(upstream: upstream, downstream: downstream)
            if let self {
                if index < self.connections.count { self.connections[index] = connection } else { self.connections.append(connection) }
            }
            return connection
        }
        clients.append(client.session)
        inputs.append(input)
        reconnectingClients[index] = client
        client.start()
        return index
    }

    /// Replaces a client's connection with a fresh one and reconnects (resuming its session).
    /// For a reconnecting client, leave this to its ``ReconnectingSession``.
    ///
    /// - Parameters:
    ///   - index: The client's index.
    ///   - upstream: The new client-to-host link.
    ///   - downstream: The new host-to-client link.
    public func reconnect(_ index: Int, upstream: LinkConditions = .perfect, downstream: LinkConditions = .perfect) {
        let connection = network.connect(upstream: upstream, downstream: downstream)
        connections[index] = connection
        clients[index].connect(over: connection)
    }

    /// Simulates the server process dying and starting again: every client's connection is
    /// lost, and a new host with the same configuration, on the same network and clock,
    /// takes the old one's place, optionally carrying on from a state the old one exported.
    /// Clients reconnect with ``reconnect(_:upstream:downstream:)`` (reconnecting clients on
    /// their own). After ``takeHostDown()``, this brings the server back up.
    ///
    /// - Parameter state: What the old host exported (``Host/exportState()``), or `nil` to start fresh.
    /// - Throws: ``HostStateError`` when the new host refuses the state; the old host then stays.
    public func restartHost(restoring state: HostState<G.State>? = nil) throws(HostStateError) {
        var configuration = host.configuration
        // A new process draws new tokens: a seeded host moves its seed on, or it would hand
        // out the old host's tokens again (to newcomers, beside restored clients holding them).
        configuration.tokenSeed = configuration.tokenSeed.map { $0 &+ 0x9E37_79B9_7F4A_7C15 }
        let replacement =
            if let state {
                try Host(game: game, listener: network, clock: clock, configuration: configuration, restoring: state)
            } else {
                Host(game: game, listener: network, clock: clock, configuration: configuration)
            }
        for connection in connections { connection.disconnect() }
        host = replacement
        isHostDown = false
        network.isAcceptingConnections = true
    }

    /// Simulates the server process dying and staying down: every client's connection is cut,
    /// the host stops ticking, and new connections fail (``SimulatedNetwork/isAcceptingConnections``)
    /// until ``restartHost(restoring:)`` starts a new one. Export the state to carry over first
    /// (``Host/exportState()``), as a process saving it periodically would have.
    public func takeHostDown() {
        isHostDown = true
        network.isAcceptingConnections = false
        for connection in connections { connection.disconnect() }
    }

    /// Runs host, network and clients for `duration` of virtual time, in 1 ms steps.
    ///
    /// - Parameter duration: How long to run.
    public func run(for duration: Duration) {
        let end = clock.now + duration
        let tickPeriod = Duration.nanoseconds(1_000_000_000 / Int64(max(host.configuration.tickRate, 1)))
        while clock.now < end {
            if !isHostDown { host.advance() }
            onStep?()
            if clock.now >= nextClientTick {
                for (index, client) in clients.enumerated() {
                    let input = inputs[index](index, clientTick)
                    if let reconnecting = reconnectingClients[index] { reconnecting.tick(input: input) } else { client.tick(input: input) }
                }
                clientTick += 1
                nextClientTick = nextClientTick + tickPeriod
            }
            if clock.now >= nextFrame {
                for (index, client) in clients.enumerated() {
                    let view = if let reconnecting = reconnectingClients[index] { reconnecting.render() } else { client.render() }
                    if let view { onFrame?(index, view) }
                }
                nextFrame = nextFrame + .nanoseconds(16_666_667)
            }
            clock.advance(by: .milliseconds(1))
        }
    }
}

@available(*, unavailable, message: "A TickSimulation is driven from one thread.")
extension TickSimulation: Sendable {}
