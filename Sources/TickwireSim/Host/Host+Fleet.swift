import TickwireCodec

/// What a ``Host`` with a ``RoomDirectory`` keeps: the directory, the game's room-state coding,
/// when it reports next, and the rooms it runs without a claim.
struct FleetLink<G: Game> {
    let directory: any RoomDirectory
    let encode: (RoomState<G.State>) -> [UInt8]
    let decode: ([UInt8], RoomStateEncoding.Limits) throws(RoomStateError) -> RoomState<G.State>
    var nextReportAt: Timestamp
    /// Rooms opened while the directory was unavailable (standalone mode): not saved, not released.
    var unclaimed: Set<String> = []
}

/// Where a hello's room stands, for a host with a directory.
enum RoomResolution<G: Game> {
    case ready(Room<G>)
    case waiting
    case refused(Message.Reject.Reason, String)
}

extension Host where G: PersistableGame {
    /// Creates a host that is one process of a fleet: it runs the rooms its ``RoomDirectory``
    /// places here, and sends clients of other rooms to the process that holds them.
    ///
    /// A hello for a room the host does not run asks ``RoomDirectory/placement(ofRoom:)``:
    /// - ``RoomPlacement/pending``: the hello waits (the host asks again each pass, within
    ///   ``HostConfiguration/handshakeTimeout``);
    /// - ``RoomPlacement/here(savedState:)``: the host opens the room, restored from the saved
    ///   state when there is one (its world and tick, and a place for each of its clients to
    ///   resume with its token, as ``init(game:listener:clock:configuration:restoring:)`` does),
    ///   and accepts the hello;
    /// - ``RoomPlacement/elsewhere(url:)``: the hello is rejected with reason
    ///   ``Message/Reject/Reason/redirect``, the URL as its text, and close code 4007;
    /// - ``RoomPlacement/unavailable``: standalone mode, the host runs the room here without a
    ///   claim (play goes on while the directory is unreachable; the room is neither saved nor
    ///   released).
    ///
    /// Which names may be rooms: those of ``HostConfiguration/rooms``, or any name with
    /// ``HostConfiguration/createsRoomsOnDemand``; no room opens before a hello asks for it.
    /// Every ``HostConfiguration/directoryInterval`` the host reports its rooms' loads and saves
    /// each held room's state (``RoomStateEncoding``); a room that closes is saved a last time
    /// and released; a room the directory reports lost is closed, its clients told to reconnect
    /// (disconnect reason ``Message/Disconnect/Reason/moved``). ``drain(text:)`` hands every room
    /// on before the process exits. All directory calls run on the driving thread, between passes.
    ///
    /// - Parameters:
    ///   - game: The game to host; its worlds are saved with ``PersistableGame``.
    ///   - listener: Where new connections come from.
    ///   - clock: The clock to tick on.
    ///   - configuration: Rooms, rates, limits and policies.
    ///   - directory: The fleet's room directory (``InMemoryRoomDirectory`` in tests).
    public convenience init(
        game: G, listener: any TransportListener, clock: any TickClock, configuration: HostConfiguration = HostConfiguration(),
        directory: any RoomDirectory
    ) {
        let link = FleetLink<G>(
            directory: directory, encode: { game.encodeRoomState($0) },
            decode: { (bytes, limits) throws(RoomStateError) in try game.decodeRoomState(bytes, limits: limits) },
            nextReportAt: clock.now)
        self.init(game: game, listener: listener, clock: clock, configuration: configuration, fleet: link)
    }
}

extension Host {
    /// The host's room directory, or `nil` for a standalone host.
    public var directory: (any RoomDirectory)? { fleet?.directory }

    /// Asks the directory where a hello's room lives, and opens it here when it is here.
    func placeRoom(named name: String, now: Timestamp) -> RoomResolution<G> {
        guard let fleet else { return .refused(.unknownRoom, "there is no room named '\(name)'") }
        guard configuration.createsRoomsOnDemand || configuration.rooms.contains(name) else {
            return .refused(.unknownRoom, "there is no room named '\(name)'")
        }
        guard roomOrder.count < configuration.maximumRooms else {
            return .refused(
                .unknownRoom, "the server runs its most rooms (\(configuration.maximumRooms)); there is no room named '\(name)'")
        }
        switch fleet.directory.placement(ofRoom: name) {
        case .pending:
            return .waiting
        case .elsewhere(let url):
            fleetMetrics.redirects += 1
            return .refused(.redirect, url)
        case .unavailable:
            fleetMetrics.standaloneRooms += 1
            let room = openRoomOnDemand(named: name)
            self.fleet?.unclaimed.insert(name)
            return .ready(room)
        case .here(let saved):
            fleetMetrics.roomsClaimed += 1
            if let saved {
                do {
                    let state = try fleet.decode(saved, configuration.roomStateLimits)
                    guard state.name == name else { throw RoomStateError(.malformed("it is room '\(state.name)''s state")) }
                    try restoreRoom(state, onDemand: true)
                    fleetMetrics.roomsRestored += 1
                    if let room = roomsByName[name] { return .ready(room) }
                } catch {
                    // A state that cannot be restored leaves a fresh room: play goes on.
                    fleetMetrics.statesRefused += 1
                    configuration.logSink.log(
                        .error, "could not restore the room's saved state; the room opens fresh",
                        metadata: ["room": name, "error": "\(error)"], source: "host")
                }
            }
            return .ready(openRoomOnDemand(named: name))
        }
    }

    /// Where a redirect or a move sends `connection`'s client: the process at `url` on the
    /// connection's own transport when it hands over (``HandoverConnection``: a UDP client gets a
    /// connect token for the process's UDP address first) and the directory knows that address;
    /// else `url`. An empty `url` (no process known) stays empty.
    func handoverURL(_ url: String, for connection: any TransportConnection) -> String {
        guard !url.isEmpty, let handover = connection as? any HandoverConnection,
            let address = fleet?.directory.udpURL(ofProcessAt: url)
        else { return url }
        guard let handedOver = handover.handOver(to: address) else {
            fleetMetrics.handoversFailed += 1
            configuration.logSink.log(
                .warning, "could not hand the client over on its transport; redirecting it to the WebSocket URL",
                metadata: ["url": url, "address": address, "connection": "\(connection.connectionID)"], source: "host")
            return url
        }
        fleetMetrics.handovers += 1
        return handedOver
    }

    /// Rejects a hello with a redirect to the process at `url` (on the connection's transport, ``handoverURL(_:for:)``).
    func redirect(_ connection: any TransportConnection, to url: String) {
        reject(connection, .redirect, handoverURL(url, for: connection))
    }

    /// Reports loads and saves every held room when due, and hands lost rooms on.
    func directoryPass(now: Timestamp) {
        guard let fleet, !isShuttingDown else { return }
        for name in fleet.directory.takeLostRooms() where roomsByName[name] != nil {
            fleetMetrics.roomsLost += 1
            fleetMetrics.clientsMoved += roomsByName[name]?.clientCounts.connected ?? 0
            // Where the room went, when the directory says; asking may claim a room no one holds
            // any more, a claim this host gives straight back (its clients go through their entries).
            var url = ""
            switch fleet.directory.placement(ofRoom: name) {
            case .elsewhere(let holder): url = holder
            case .here: fleet.directory.release(room: name)
            case .pending, .unavailable: break
            }
            removeRoom(named: name, why: .moved) { room, now in
                room.disconnectAll(reason: .moved, now: now) { handoverURL(url, for: $0) }
            }
        }
        guard now >= fleet.nextReportAt else { return }
        self.fleet?.nextReportAt = now + configuration.directoryInterval
        reportAndSave()
    }

    /// Reports every room's load and saves every held room's state.
    private func reportAndSave() {
        guard let fleet else { return }
        fleet.directory.report(
            rooms: roomOrder.compactMap { name in
                roomsByName[name].map { room in
                    let details = game.listing(of: room.state, room: name)
                    // Verified players by their user id in decimal, as a matchmaker names them.
                    let players = room.clientIDs.compactMap { room.clients[$0]?.identity.map { String($0.userID) } }
                    return RoomLoad(
                        name: name, clients: room.clientIDs.count, capacity: configuration.roomCapacity, players: players,
                        isLocked: details.isLocked, isPrivate: details.isPrivate, metadata: details.metadata)
                }
            })
        for name in roomOrder where !fleet.unclaimed.contains(name) { save(room: name) }
    }

    /// Saves one held room's state in the directory.
    private func save(room name: String) {
        guard let fleet, let room = roomsByName[name], !fleet.unclaimed.contains(name) else { return }
        let bytes = fleet.encode(room.exportState())
        guard bytes.count <= configuration.roomStateLimits.maximumBytes else {
            fleetMetrics.statesTooLarge += 1
            if Room<G>.isLogged(fleetMetrics.statesTooLarge) {
                configuration.logSink.log(
                    .error, "did not save the room's state: it is over the size limit",
                    metadata: [
                        "room": name, "bytes": "\(bytes.count)", "limit": "\(configuration.roomStateLimits.maximumBytes)",
                        "too_large_so_far": "\(fleetMetrics.statesTooLarge)",
                    ], source: "host")
            }
            return
        }
        fleet.directory.save(room: name, state: bytes)
        fleetMetrics.statesSaved += 1
    }

    /// Saves a room a last time and gives up its claim (nothing for a standalone host or an unclaimed room).
    func saveAndRelease(room name: String) {
        guard let fleet, !fleet.unclaimed.contains(name) else { return }
        save(room: name)
        fleet.directory.release(room: name)
    }

    /// Hands every room on before the process exits (on SIGTERM): saves each room's state,
    /// releases its claim, tells each connected client to reconnect at once elsewhere
    /// (disconnect reason ``Message/Disconnect/Reason/moved`` carrying
    /// ``RoomDirectory/anotherProcessURL()``, or no URL: the client's entry URLs), and from then
    /// on answers every hello with a redirect to another process (or, when the directory knows
    /// none, a reject as shutting down). Clients resume their players on the process that
    /// claims the room next, without waiting for a claim to expire.
    ///
    /// Without a directory it is ``shutdown(text:)``. The rooms stay, for ``exportState()``.
    ///
    /// - Parameter text: Words for the log; the moved disconnects carry the URL instead.
    public func drain(text: String = "the server is draining") {
        guard let fleet else { return shutdown(text: text) }
        isShuttingDown = true
        fleetMetrics.drains += 1
        for name in roomOrder { saveAndRelease(room: name) }
        let url = fleet.directory.anotherProcessURL() ?? ""
        let now = clock.now
        listener.batchingSends {
            for entry in pending {
                if url.isEmpty { reject(entry.connection, .serverShuttingDown, text) } else { redirect(entry.connection, to: url) }
            }
            pending.removeAll()
            for name in roomOrder {
                fleetMetrics.clientsMoved += roomsByName[name]?.clientCounts.connected ?? 0
                roomsByName[name]?.disconnectAll(reason: .moved, now: now) { handoverURL(url, for: $0) }
            }
        }
        // The claims are released: the rooms must not be saved or released again.
        self.fleet?.unclaimed = Set(roomOrder)
        publishMetrics(passDuration: nil)
    }
}
