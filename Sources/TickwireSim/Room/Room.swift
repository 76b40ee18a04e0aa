import TickwireCodec

/// One world hosted by a ``Host``: its state, its tick loop and its clients.
///
/// Each tick the room drains its clients' inboxes (inputs, acknowledgements, pings,
/// disconnects), applies one queued input per client, steps the world, captures a
/// snapshot, and sends each client that is due one a delta against the newest snapshot it
/// acknowledged that is still in its history (else a full snapshot), filtered by the
/// interest filter and stamped with the last input applied for it. A client whose
/// connection is backed up (``TransportConnection/readiness(budgetBytes:)`` with the outbound
/// budget) skips the snapshot instead, before it is encoded, so no compression stream ever
/// holds a snapshot that was not sent.
///
/// Bad frames (frames that fail to decode, inputs the game cannot decode, messages of a type
/// clients do not send) count against their client: past ``HostConfiguration/badFrameLimit``
/// within ``HostConfiguration/badFrameWindow`` it is dropped with a protocol error (close code
/// 4004). How clients leave, and the rules of held slots: `Room+Departures.swift`.
///
/// Not thread-safe: driven by its host on one tick thread during a pass (its home thread,
/// ``Host/tickThread(ofRoom:)``, or one that took it over), and read or changed on the host's
/// driving thread only between passes.
public final class Room<G: Game> {
    /// The room's name (the empty string for the default room).
    public let name: String
    let game: G
    let configuration: HostConfiguration
    let clock: any TickClock
    let codec: SnapshotCodec
    /// The room's tick loop.
    let loop: TickLoop
    /// The world as of the last tick.
    public internal(set) var state: G.State
    /// The tick of the newest snapshot (0 before the first tick).
    public private(set) var tick: UInt32 = 0
    /// The room's own snapshots of the last ticks (unfiltered).
    private(set) var history: SnapshotHistory
    /// The captured world of the last ``LagCompensationConfiguration/window``, only for a game
    /// that compensates lag (``Game/compensatesLag``).
    private(set) var lagHistory: LagHistory?
    var clients: [UInt32: RoomClient<G>] = [:]
    /// Client ids in ascending order: every per-client loop walks this, so runs are deterministic.
    var clientOrder: [UInt32] = []
    /// Players removed since the host last took these (``Host`` reports them as
    /// ``HostEvent/Kind/left``, on its driving thread, after each pass): at most the clients the
    /// room held and admitted within one pass.
    var departures: [(id: UInt32, why: HostEvent.Departure, identity: PlayerIdentity?)] = []
    var totals = RoomMetrics()
    var bytesOut = RateMeter()
    /// Pings taken in since the last tick's end, answered there (``answerPendingPings(now:)``).
    var pendingPings: [PendingPing] = []
    private var bytesIn = RateMeter()
    private var cpu: CPUUsage?
    private var nextStatsAt: Timestamp?
    /// Where the tick figures of stats messages come from: the owning host's passes (see
    /// ``Host/passStatistics``), or this room's own ticks when `nil` or when it answers `nil`.
    var serverTickStatistics: (() -> TickStatistics?)?
    /// The game's schema in storage of the room's own: every snapshot the room makes holds it,
    /// and rooms on different tick threads must not share the reference counts of one copy
    /// (each snapshot copy retains them; shared, the cores fight over those cache lines).
    let schema: Schema

    init(name: String, game: G, configuration: HostConfiguration, clock: any TickClock) {
        self.name = name
        self.game = game
        self.configuration = configuration
        self.clock = clock
        self.schema = game.schema.privateCopy()
        self.codec = SnapshotCodec(schema: schema, limits: configuration.codecLimits)
        self.loop = TickLoop(rate: configuration.tickRate, clock: clock, maximumCatchUp: configuration.maximumCatchUp)
        self.state = game.makeWorld(room: name)
        self.history = SnapshotHistory(capacity: configuration.historySize)
        if game.compensatesLag { self.lagHistory = LagHistory(settings: configuration.lagCompensation, tickRate: configuration.tickRate) }
    }

    // MARK: Clients

    /// The ids of the clients in the room (connected or within their grace period), ascending.
    public var clientIDs: [UInt32] { clientOrder }

    /// Whether the client is connected now (as opposed to waiting to resume).
    ///
    /// - Parameter client: The client id.
    /// - Returns: `true` when connected, `false` when disconnected or unknown.
    public func isConnected(_ client: UInt32) -> Bool { clients[client]?.isConnected ?? false }

    /// The host's figures for one client.
    ///
    /// - Parameter client: The client id.
    /// - Returns: Its metrics, or `nil` for an unknown client.
    public func clientMetrics(_ client: UInt32) -> HostClientMetrics? {
        guard let record = clients[client] else { return nil }
        var metrics = record.metrics
        let now = clock.now
        record.bytesOut.roll(to: now)
        record.bytesIn.roll(to: now)
        metrics.bytesOutPerSecond = record.bytesOut.perSecond
        metrics.bytesInPerSecond = record.bytesIn.perSecond
        metrics.acknowledgedTick = record.acknowledgedTick
        return metrics
    }

    /// Sends one client a snapshot every `interval` ticks from now on.
    ///
    /// - Parameters:
    ///   - interval: Ticks between snapshots (at least 1).
    ///   - client: The client id.
    public func setSnapshotInterval(_ interval: Int, for client: UInt32) {
        clients[client]?.snapshotInterval = max(1, interval)
    }

    /// The room's figures.
    public var metrics: RoomMetrics {
        var metrics = totals
        metrics.ticks = loop.statistics
        let counts = clientCounts
        metrics.connectedClients = counts.connected
        metrics.resumableClients = counts.held
        metrics.bytesOutPerSecond = bytesOut.perSecond
        metrics.bytesInPerSecond = bytesIn.perSecond
        metrics.bytesOutTotal = bytesOut.total
        metrics.bytesInTotal = bytesIn.total
        return metrics
    }

    /// Clients connected now and held (within their grace period), counted without allocating
    /// (the host's metrics read it once per pass).
    var clientCounts: (connected: Int, held: Int) {
        // The dictionary's values in storage order: no hashing (this runs on the driving thread,
        // between the tick threads' passes, so it is kept short).
        var connected = 0
        for client in clients.values where client.isConnected { connected += 1 }
        return (connected, clients.count - connected)
    }

    /// Frame bytes sent to all clients over the room's life.
    var bytesOutTotal: Int { bytesOut.total }

    /// Frame bytes received from all clients over the room's life.
    var bytesInTotal: Int { bytesIn.total }

    var isFull: Bool { clientOrder.count >= configuration.roomCapacity }

    func client(withToken token: [UInt8]) -> RoomClient<G>? {
        for id in clientOrder where clients[id]?.token == token { return clients[id] }
        return nil
    }

    func admit(_ client: RoomClient<G>, payload: [UInt8]) {
        clients[client.id] = client
        let position = clientOrder.firstIndex { $0 > client.id } ?? clientOrder.count
        clientOrder.insert(client.id, at: position)
        state = game.addPlayer(client.id, payload: payload, identity: client.identity, to: state)
    }

    /// Puts a saved world and tick in place of a fresh room's and admits restored clients
    /// (disconnected, their grace period starting now) without telling the game: their
    /// players are already in `world`.
    func restore(world: G.State, tick: UInt32, clients restored: [RoomClient<G>]) {
        state = world
        self.tick = tick
        history.removeAll()
        if game.compensatesLag { lagHistory = LagHistory(settings: configuration.lagCompensation, tickRate: configuration.tickRate) }
        for client in restored {
            clients[client.id] = client
            let position = clientOrder.firstIndex { $0 > client.id } ?? clientOrder.count
            clientOrder.insert(client.id, at: position)
        }
    }

    // MARK: Ticking

    /// Runs the ticks due by now on the room's clock.
    ///
    /// - Returns: What the tick loop did.
    @discardableResult
    func advance() -> TickLoop.Advance {
        loop.advance { _, dt in runTick(dt: dt) }
    }

    func runTick(dt: Double) {
        let now = clock.now
        receive(now: now)
        expire(now: now)
        // Last of all, so that each pong's hold covers the whole tick it waited for.
        defer { answerPendingPings(now: now) }

        var inputs: [UInt32: G.Input] = [:]
        var renderTicks: [UInt32: Double] = [:]
        for id in clientOrder {
            guard let client = clients[id], !client.inputQueue.isEmpty else { continue }
            let next = client.inputQueue.removeFirst()
            inputs[id] = next.input
            client.lastAppliedSequence = next.sequence
            client.metrics.inputsApplied += 1
            if let lagHistory,
                let ticks = lagHistory.resolve(
                    claim: next.renderTime?.ticks, arrival: next.arrival, roundTrip: client.metrics.roundTrip)
            {
                renderTicks[id] = ticks
            }
        }
        if let lagHistory {
            let lag = LagCompensation(history: lagHistory, renderTicks: renderTicks, isEnabled: configuration.lagCompensation.isEnabled)
            state = game.step(state, inputs: inputs, dt: dt, lag: lag)
        } else {
            state = game.step(state, inputs: inputs, dt: dt)
        }
        tick &+= 1
        if tick == 0 { tick = 1 }  // Wrapping: tick 0 means "none" on the wire's ack field; skip it.

        var snapshot = Snapshot(schema: schema, tick: tick, capacity: history.snapshot(at: tick &- 1)?.count ?? 0)
        do {
            try game.capture(state, into: &snapshot)
        } catch {
            // A game that cannot describe its world sends nothing this tick: counted and logged.
            snapshotNotCaptured(error)
            return
        }
        history.store(snapshot)
        lagHistory?.record(snapshot, at: now, teleported: game.teleportedEntities(in: state))
        send(snapshot, now: now)
        bytesOut.roll(to: now)
        bytesIn.roll(to: now)
        sendStatsIfDue(now: now)
    }

    /// Sends every connected client a stats message when the configured interval has passed.
    private func sendStatsIfDue(now: Timestamp) {
        guard let interval = configuration.statsInterval else { return }
        guard let due = nextStatsAt else {
            // The first interval only starts the CPU measurement.
            nextStatsAt = now + interval
            cpu = CPUUsage(now: now)
            return
        }
        guard now >= due else { return }
        nextStatsAt = now + interval
        let share = cpu?.sample(now: now) ?? 0
        let ticks = serverTickStatistics?() ?? loop.statistics
        func micros(_ duration: Duration) -> UInt32 { UInt32(clamping: duration.wholeNanoseconds / 1000) }
        var connected = 0
        for id in clientOrder where clients[id]?.isConnected ?? false { connected += 1 }
        let stats = Message.Stats(
            tick: tick, tickDurationP50: micros(ticks.p50), tickDurationP99: micros(ticks.p99),
            tickDurationMax: micros(ticks.percentile(1)), cpuPerMille: UInt32(clamping: Int((share * 1000).rounded())),
            connectedClients: UInt32(clamping: connected), bytesOutPerSecond: UInt64(max(0, bytesOut.perSecond)))
        for id in clientOrder {
            guard let client = clients[id], client.isConnected else { continue }
            if let count = client.send(.stats(stats), now: now).sentBytes { bytesOut.add(count, at: now) }
        }
    }

    /// Takes in what every client's connection has received: frames (inputs queued, pings
    /// answered, bad frames counted) and ends (a connection that ended without a disconnect
    /// becomes a held slot). Each tick starts with it; a host also calls it between ticks for a
    /// hello that finds the room full, so that connections that have already ended count as
    /// held slots, not as connected players.
    ///
    /// - Parameter now: The host's clock.
    func receive(now: Timestamp) {
        for id in clientOrder {
            guard let client = clients[id], let connection = client.connection else { continue }
            for arrival in connection.drainArrivals() {
                switch arrival.event {
                case .frame(let bytes):
                    client.bytesIn.add(bytes.count, at: now)
                    bytesIn.add(bytes.count, at: now)
                    handle(bytes, from: client, now: now, arrivedAt: now - arrival.waited)
                case .closed:
                    client.connection = nil
                    client.disconnectedAt = now
                    releaseHeldSlotsOverLimit()
                }
                if !client.isConnected { break }
            }
        }
    }

    private func handle(_ bytes: [UInt8], from client: RoomClient<G>, now: Timestamp, arrivedAt: Timestamp) {
        let message: Message
        do {
            message = try client.decompressor.decode(bytes)
        } catch {
            if client.decompressor.isBroken {
                client.metrics.badFrames += 1
                totals.badFrames += 1
                disconnect(client, reason: .protocolError, text: "the compression stream broke: \(error)", now: now)
            } else {
                countBadFrame(from: client, now: now, what: "\(error)")
            }
            return
        }
        client.lastHeard = now
        switch message {
        case .input(let input):
            if let ack = input.ackTick, client.sent.snapshot(at: ack) != nil {
                // Wrapping: a newer ack is ahead of the old one by less than half the tick range.
                if client.acknowledgedTick.map({ ack &- $0 < 1 << 31 }) ?? true {
                    client.acknowledgedTick = ack
                    if let sentAt = client.sendTime(of: ack) {
                        let sample = Double(now.nanoseconds - sentAt) / 1e9
                        client.metrics.roundTrip =
                            client.metrics.roundTrip == 0 ? sample : client.metrics.roundTrip + (sample - client.metrics.roundTrip) / 8
                    }
                }
            }
            let undecodable = client.enqueue(input, game: game, limit: configuration.inputQueueLimit, now: now)
            for _ in 0..<undecodable where client.isConnected {
                countBadFrame(from: client, now: now, what: "an input the game cannot decode")
            }
        case .ping(let ping):
            pendingPings.append(PendingPing(clientID: client.id, ping: ping, arrivedAt: arrivedAt))
        case .disconnect:
            remove(client.id, why: .leaving)
        default:
            countBadFrame(from: client, now: now, what: "a \(message.type) message, which clients do not send")
        }
    }

    /// Counts and logs a tick whose snapshot the game could not capture (nobody gets one).
    private func snapshotNotCaptured(_ error: any Error) {
        totals.snapshotsNotCaptured += 1
        guard Self.isLogged(totals.snapshotsNotCaptured) else { return }
        configuration.logSink.log(
            .error, "the game could not capture its world; no snapshot this tick",
            metadata: ["room": name, "tick": "\(tick)", "error": "\(error)", "dropped_so_far": "\(totals.snapshotsNotCaptured)"],
            source: "room")
    }

    /// Counts and logs a snapshot that could not be encoded for `client` (a codec or frame limit).
    private func snapshotNotEncoded(for client: RoomClient<G>, error: any Error) {
        client.metrics.snapshotsNotEncoded += 1
        totals.snapshotsNotEncoded += 1
        guard Self.isLogged(totals.snapshotsNotEncoded) else { return }
        configuration.logSink.log(
            .error, "could not encode a snapshot for a client; it was dropped",
            metadata: [
                "room": name, "client": "\(client.id)", "tick": "\(tick)", "error": "\(error)",
                "dropped_so_far": "\(totals.snapshotsNotEncoded)",
            ], source: "room")
    }

    /// Whether the `count`-th drop of one kind in a room is logged: the 1st, 2nd, 4th, 8th…, so
    /// that a failure repeating every tick writes a few lines, not one per tick (the metrics
    /// count every one).
    static func isLogged(_ count: Int) -> Bool { count > 0 && count & (count - 1) == 0 }

    private func countSkippedSnapshot(for client: RoomClient<G>) {
        client.metrics.snapshotsSkipped += 1
        totals.snapshotsSkipped += 1
    }

    private func send(_ snapshot: Snapshot, now: Timestamp) {
        let serverTime = UInt64(max(0, now.nanoseconds / 1000))
        // Without an interest filter every client sees the same snapshot, so deltas against
        // the same baseline (and baseline motion) are equal: encode each once per tick.
        var shared = SharedSnapshotEncodings()
        let interest = configuration.interestFilter?.prepare(snapshot)
        for id in clientOrder {
            guard let client = clients[id], let connection = client.connection else { continue }
            guard Int(tick % UInt32(client.snapshotInterval)) == Int(client.id % UInt32(client.snapshotInterval)) else { continue }
            // The one backpressure signal, asked before anything is encoded: a backed-up client
            // skips this snapshot, and its next delta is still against the last one it acknowledged.
            switch connection.readiness(budgetBytes: configuration.outboundBudgetBytes) {
            case .taken:
                break
            case .backedUp:
                countSkippedSnapshot(for: client)
                continue
            case .closed:
                continue
            }
            let view: Snapshot
            if let interest {
                view = interest.view(for: game.entityID(of: id, in: state))
            } else {
                view = snapshot
            }
            let baseline = client.needsFullSnapshot ? nil : client.acknowledgedTick.flatMap { client.sent.snapshot(at: $0) }
            let coding = client.deltaCoding
            // The motion this client holds with its baseline, for a motion-predicted delta.
            let baselineMotion = coding.predictsMotion ? baseline.map { client.sent.motion(at: $0.tick) } ?? .zero : .zero
            let delta: [UInt8]
            var motion = SnapshotMotion.zero
            do {
                if interest != nil {
                    delta = try codec.encode(view, against: baseline, coding: coding, baselineMotion: baselineMotion, motion: &motion)
                } else {
                    (delta, motion) = try shared.encoding(
                        of: view, against: baseline, baselineMotion: baselineMotion, coding: coding, codec: codec)
                }
            } catch {
                snapshotNotEncoded(for: client, error: error)
                continue
            }
            let message = Message.Snapshot(
                tick: tick, baselineTick: baseline?.tick, lastProcessedInput: client.lastAppliedSequence,
                serverTime: serverTime, delta: delta)
            let count: Int
            switch client.send(.snapshot(message), now: now, budgetBytes: configuration.outboundBudgetBytes) {
            case .sent(let bytes):
                count = bytes
            case .notSent(.backedUp):
                countSkippedSnapshot(for: client)
                continue
            case .notEncoded(let error):
                snapshotNotEncoded(for: client, error: error)
                continue
            case .closedBrokenStream(let result):
                configuration.logSink.log(
                    .warning, "closed a client's connection: it refused a compressed snapshot, and the compression stream cannot skip it",
                    metadata: ["room": name, "client": "\(client.id)", "tick": "\(tick)", "result": "\(result)"], source: "room")
                continue
            case .notSent:
                continue  // closed since it was asked: the client is leaving, nothing is lost
            }
            client.sent.store(view, motion: motion)
            client.recordSendTime(tick: tick, time: now.nanoseconds)
            client.needsFullSnapshot = false
            client.metrics.snapshotsSent += 1
            client.metrics.lastSnapshotBytes = count
            client.metrics.largestSnapshotBytes = max(client.metrics.largestSnapshotBytes, count)
            client.metrics.snapshotBytesTotal += count
            totals.snapshotsSent += 1
            totals.snapshotBytesTotal += count
            bytesOut.add(count, at: now)
            if baseline == nil {
                client.metrics.fullSnapshotsSent += 1
                totals.fullSnapshotsSent += 1
            }
        }
    }
}

@available(*, unavailable)
extension Room: Sendable {}
