import TickwireCodec

extension Host {
    /// Creates a host that carries on from a ``HostState`` exported by an earlier host (another
    /// process, before a restart): it opens the configured rooms as usual, then restores each
    /// room of the state, opening it when the configuration does not name it.
    ///
    /// Each restored room gets its world and tick back, and keeps a place for each of its
    /// clients, with the identity its connect token verified (``ResumableClient/identity``):
    /// they start disconnected, their ``HostConfiguration/resumeGracePeriod``
    /// starting now, and a hello carrying one's resume token gets that client's id and player
    /// back, exactly as after a dropped connection. A client that does not return in time is
    /// removed (``Game/removePlayer(_:from:)``) like any other. The game is not told about
    /// restored players: they are already in the restored worlds. New clients get ids above
    /// every restored one.
    ///
    /// - Parameters:
    ///   - game: The game to host (the one whose state was exported).
    ///   - listener: Where new connections come from.
    ///   - clock: The clock to tick on.
    ///   - configuration: Rooms, rates, limits and policies.
    ///   - state: What the earlier host exported.
    /// - Throws: ``HostStateError`` when the state is inconsistent: a room listed twice, a client
    ///   id of 0 or listed twice, a resume token empty, over ``FrameLimits/maximumResumeTokenBytes``
    ///   or shared, or a room holding more clients than ``HostConfiguration/roomCapacity``.
    public convenience init(
        game: G, listener: any TransportListener, clock: any TickClock, configuration: HostConfiguration = HostConfiguration(),
        restoring state: HostState<G.State>
    ) throws(HostStateError) {
        try Self.validate(state, configuration: configuration)
        self.init(game: game, listener: listener, clock: clock, configuration: configuration)
        for saved in state.rooms {
            // A room the configuration does not name was opened on demand: it closes when idle again.
            let isOnDemand = configuration.createsRoomsOnDemand && !configuration.rooms.contains(saved.name)
            try restoreRoom(saved, onDemand: isOnDemand && roomsByName[saved.name] == nil, validated: true)
        }
        let highestID = state.rooms.flatMap(\.clients).map(\.id).max() ?? 0
        nextClientID = max(state.nextClientID, 1)
        moveClientIDs(past: highestID)
    }

    /// Opens (or takes, when open) the room `saved` names and restores its world, tick and
    /// clients: the one path of a restart's ``HostState`` and of a room state from a
    /// ``RoomDirectory``. New clients get ids above the restored ones.
    ///
    /// - Parameters:
    ///   - saved: The room's state.
    ///   - onDemand: Whether the room closes once idle (``HostConfiguration/idleRoomTimeout``).
    ///   - validated: Whether `saved` was checked already (with its whole ``HostState``).
    /// - Throws: ``HostStateError`` when the room's clients are inconsistent (see
    ///   ``init(game:listener:clock:configuration:restoring:)``).
    func restoreRoom(_ saved: RoomState<G.State>, onDemand: Bool, validated: Bool = false) throws(HostStateError) {
        if !validated {
            var ids: Set<UInt32> = []
            var tokens: Set<[UInt8]> = []
            try Self.validate(saved, configuration: configuration, ids: &ids, tokens: &tokens)
        }
        let now = clock.now
        var restored: [RoomClient<G>] = []
        for client in saved.clients {
            let record: RoomClient<G>
            do {
                record = try RoomClient(
                    id: client.id, token: client.token, connection: nil, compression: .none, configuration: configuration, now: now)
            } catch {
                throw HostStateError(.compression(error.description))
            }
            record.identity = client.identity
            restored.append(record)
        }
        let target = onDemand ? openRoomOnDemand(named: saved.name) : openRoom(named: saved.name)
        target.restore(world: saved.world, tick: saved.tick, clients: restored)
        moveClientIDs(past: saved.clients.map(\.id).max() ?? 0)
    }

    /// Moves the next client id past `highest` (wrapping: past the largest id, numbering starts
    /// again at 1, as for a fresh host).
    func moveClientIDs(past highest: UInt32) {
        if highest >= nextClientID { nextClientID = highest &+ 1 == 0 ? 1 : highest &+ 1 }
    }

    /// What this host would need to carry on in another process: every room's world, tick and
    /// clients (connected ones included: after a restart they are all disconnected and may
    /// resume), and the next client id.
    ///
    /// - Returns: The state, for ``init(game:listener:clock:configuration:restoring:)``.
    public func exportState() -> HostState<G.State> {
        HostState(rooms: roomNames.compactMap { room(named: $0)?.exportState() }, nextClientID: nextClientID)
    }

    private static func validate(_ state: HostState<G.State>, configuration: HostConfiguration) throws(HostStateError) {
        var names: Set<String> = []
        var ids: Set<UInt32> = []
        var tokens: Set<[UInt8]> = []
        for room in state.rooms {
            guard names.insert(room.name).inserted else { throw HostStateError(.duplicateRoom(room.name)) }
            try validate(room, configuration: configuration, ids: &ids, tokens: &tokens)
        }
    }

    /// Checks one room's clients; `ids` and `tokens` collect those seen so far (across rooms).
    private static func validate(
        _ room: RoomState<G.State>, configuration: HostConfiguration, ids: inout Set<UInt32>, tokens: inout Set<[UInt8]>
    ) throws(HostStateError) {
        let tokenLimit = configuration.frameLimits.maximumResumeTokenBytes
        guard room.clients.count <= configuration.roomCapacity else {
            throw HostStateError(.overCapacity(room: room.name, clients: room.clients.count, capacity: configuration.roomCapacity))
        }
        for client in room.clients {
            guard client.id != 0 else { throw HostStateError(.invalidClientID(room: room.name)) }
            guard ids.insert(client.id).inserted else { throw HostStateError(.duplicateClientID(client.id)) }
            guard !client.token.isEmpty, client.token.count <= tokenLimit else {
                throw HostStateError(.invalidToken(client: client.id, length: client.token.count, limit: tokenLimit))
            }
            guard tokens.insert(client.token).inserted else { throw HostStateError(.duplicateToken(client: client.id)) }
        }
    }
}

extension Room {
    /// The room's world, tick and clients (connected or within their grace period), for a
    /// ``HostState``.
    ///
    /// - Returns: The room's state.
    public func exportState() -> RoomState<G.State> {
        RoomState(
            name: name, tick: tick, world: state,
            clients: clientOrder.compactMap { id in clients[id].map { ResumableClient(id: id, token: $0.token, identity: $0.identity) } })
    }
}
