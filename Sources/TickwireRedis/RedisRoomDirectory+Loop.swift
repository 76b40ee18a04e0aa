import TickwireFoundation
@_spi(LoopThread) import TickwireIO
import TickwireSim

/// The directory's I/O, on its loop thread: the heartbeat (registration, renewal, the other
/// processes), claims, saves and releases, each one `EVAL` of a ``RedisDirectoryScripts`` script.
extension RedisRoomDirectory {
    /// The client's connection opened or closed (loop thread).
    func connectionChanged(_ isConnected: Bool) {
        let isStopped = state.withLock { state -> Bool in
            state.isConnected = isConnected
            return state.isStopped
        }
        guard isConnected, !isStopped else { return }
        // Register and claim again what this process holds or runs at once, then every interval.
        beat()
        if heartbeat.value == nil { scheduleHeartbeat() }
    }

    private func scheduleHeartbeat() {
        heartbeat.value = loop.schedule(after: configuration.heartbeatInterval) { [weak self] in
            guard let self else { return }
            self.heartbeat.value = nil
            guard !self.pruneAnswers() else { return }
            if self.client.isConnected { self.beat() }
            self.scheduleHeartbeat()
        }
    }

    /// Drops answers older than a claim's TTL and waits that have passed, so that room names
    /// asked about once do not pile up.
    ///
    /// - Returns: Whether the directory is stopped.
    private func pruneAnswers() -> Bool {
        let (now, ttl) = (MonotonicTime.now(), configuration.claimTTL.nanoseconds)
        return state.withLock { state in
            state.answers = state.answers.filter { now < $0.value.time || now - $0.value.time <= ttl }
            state.retryAfter = state.retryAfter.filter { $0.value > now }
            return state.isStopped
        }
    }

    private var ttlMilliseconds: String { Self.milliseconds(configuration.claimTTL) }

    static func milliseconds(_ duration: Duration) -> String {
        String(max(duration.nanoseconds / 1_000_000, 1))
    }

    /// One heartbeat: the registration, the claims (those held, and those of rooms the host runs
    /// without a claim, as after running standalone), and the other processes' URLs.
    func beat() {
        let configuration = configuration
        let (loads, rooms, isLeaving) = state.withLock { state -> ([RoomLoad], [String], Bool) in
            let unclaimed = state.loads.map(\.name).filter { state.held[$0] == nil && !state.relinquished.contains($0) }
            return (state.loads, Array(state.held.keys) + unclaimed, state.isLeaving)
        }
        if !isLeaving {
            let record = RedisProcessRecord(
                id: configuration.processID, url: configuration.publicURL, udp: configuration.publicUDPURL, loads: loads)
            client.send(
                RedisCommand(
                    ["SET", configuration.processKey(configuration.processID)],
                    bytes: [record.encoded, Array("PX".utf8), Array(ttlMilliseconds.utf8)])
            ) { _ in }
            client.send(RedisCommand("SADD", configuration.processSetKey, configuration.processID)) { _ in }
        }
        if !rooms.isEmpty {
            let command = RedisCommand(
                ["EVAL", RedisDirectoryScripts.renew, String(rooms.count)] + rooms.map(configuration.ownerKey)
                    + [configuration.processID, ttlMilliseconds])
            client.send(command) { [weak self] result in
                guard let self, case .success(let reply) = result, let flags = reply.elements, flags.count == rooms.count else { return }
                for (room, flag) in zip(rooms, flags) {
                    if flag.integer == 1 {
                        self.state.withLock { state in
                            if state.held[room] == nil, !state.relinquished.contains(room),
                                state.loads.contains(where: { $0.name == room })
                            {
                                state.held[room] = HeldRoom(savedState: nil)
                            }
                        }
                    } else {
                        self.markLost(room)
                    }
                }
            }
        }
        client.send(RedisCommand("SMEMBERS", configuration.processSetKey)) { [weak self] result in
            guard let self, case .success(let reply) = result, let members = reply.elements else { return }
            let others = members.compactMap(\.string).filter { $0 != configuration.processID }
            self.refreshOthers(others)
        }
    }

    /// Reads the other processes' registrations; forgets the ids whose registration expired.
    private func refreshOthers(_ ids: [String]) {
        let configuration = configuration
        guard !ids.isEmpty else {
            state.withLock { $0.otherURLs = [] }
            return
        }
        client.send(RedisCommand(["MGET"] + ids.map(configuration.processKey))) { [weak self] result in
            guard let self, case .success(let reply) = result, let values = reply.elements, values.count == ids.count else { return }
            var live: [RedisProcessRecord] = []
            var dead: [String] = []
            for (id, value) in zip(ids, values) {
                if let bytes = value.bytes, let record = RedisProcessRecord.decode(bytes) {
                    live.append(record)
                } else {
                    dead.append(id)
                }
            }
            let urls = live.sorted { ($0.clients, $0.id) < ($1.clients, $1.id) }.map(\.url).filter { $0 != configuration.publicURL }
            let udpURLs = Dictionary(live.compactMap { record in record.udp.map { (record.url, $0) } }) { first, _ in first }
            self.state.withLock { state in
                state.otherURLs = urls
                state.udpURLs = udpURLs
            }
            if !dead.isEmpty { self.client.send(RedisCommand(["SREM", configuration.processSetKey] + dead)) { _ in } }
        }
    }

    /// Claims `room`, or learns who holds it (loop thread).
    func claim(_ room: String) {
        let configuration = configuration
        let command = RedisCommand([
            "EVAL", RedisDirectoryScripts.claim, "2", configuration.ownerKey(room), configuration.stateKey(room),
            configuration.processID, ttlMilliseconds, configuration.processKey(""),
        ])
        client.send(command) { [weak self] result in
            guard let self else { return }
            let now = MonotonicTime.now()
            self.state.withLock { state in
                state.resolving.remove(room)
                guard case .success(let reply) = result, let fields = reply.elements, let won = fields.first?.integer else {
                    // Too many commands in flight: ask again on the next call. Anything else
                    // (no connection, a timeout, a server error): the host runs the room here.
                    if case .failure(let error) = result, error.exceededLimit != nil { return }
                    state.answers[room] = Answer(placement: .unavailable, time: now)
                    return
                }
                if won == 1 {
                    state.held[room] = HeldRoom(savedState: fields.count > 1 ? fields[1].bytes : nil)
                    state.relinquished.remove(room)
                    return
                }
                let record = fields.count > 2 ? fields[2].bytes.flatMap(RedisProcessRecord.decode) : nil
                if let record, record.url != configuration.publicURL {
                    state.answers[room] = Answer(placement: .elsewhere(url: record.url), time: now)
                    state.udpURLs[record.url] = record.udp
                } else {
                    // The holder is dead (or answers with this process's own URL: an old
                    // incarnation of it): wait for its claim to expire, then ask again.
                    let remaining = fields.count > 3 ? max(fields[3].integer ?? 0, 0) : 0
                    let wait = min(max(UInt64(remaining), 10), configuration.claimTTL.nanoseconds / 1_000_000)
                    state.retryAfter[room] = now + wait * 1_000_000
                }
            }
        }
    }

    /// Stores a room's state if this process holds its claim (loop thread).
    func store(_ room: String, _ roomState: [UInt8]) {
        let configuration = configuration
        let command = RedisCommand(
            [
                "EVAL", RedisDirectoryScripts.save, "2", configuration.ownerKey(room), configuration.stateKey(room),
                configuration.processID, ttlMilliseconds,
            ],
            bytes: [roomState, Array(Self.milliseconds(configuration.stateTTL).utf8)])
        client.send(command) { [weak self] result in
            if case .success(let reply) = result, reply.integer == 0 { self?.markLost(room) }
        }
    }

    /// Deletes a room's claim if it holds this process's id (loop thread).
    func unclaim(_ room: String) {
        let configuration = configuration
        client.send(
            RedisCommand("EVAL", RedisDirectoryScripts.release, "1", configuration.ownerKey(room), configuration.processID)
        ) { _ in }
    }
}
