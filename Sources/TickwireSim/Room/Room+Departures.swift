import TickwireCodec

/// How clients leave a room: disconnected (their player held for them to resume), removed
/// (their player gone), dropped by the bad-frame policy, kicked, or let go when held slots
/// must make room. Every way that ends a connection sends the disconnect message's close code
/// (``Message/Disconnect/Reason/closeCode``, PROTOCOL.md 5.10).
///
/// Held slots: a client whose connection ends without a disconnect message keeps its player
/// for ``HostConfiguration/resumeGracePeriod`` (``HostConfiguration/resumeGracePeriodWithoutInput``
/// when it never sent an input). At most ``HostConfiguration/heldSlotLimit`` slots are held
/// (restored ones aside): past it the oldest goes. And a hello for a full room lets the
/// oldest held slot go to make room, so dropped clients can never lock new players out.
extension Room {
    /// Removes a client and its player; its connection, if any, closes with `code`. The
    /// departure waits in ``departures`` for the host to report it.
    func remove(_ id: UInt32, code: CloseCode = .normalClosure, text: String = "", why: HostEvent.Departure) {
        guard let client = clients.removeValue(forKey: id) else { return }
        departures.append((id, why, client.identity))
        client.connection?.close(code: code, reason: text)
        client.connection = nil
        clientOrder.removeAll { $0 == id }
        state = game.removePlayer(id, from: state)
    }

    /// Sends a disconnect message and closes with its reason's code; the player is held for
    /// the client to resume.
    func disconnect(_ client: RoomClient<G>, reason: Message.Disconnect.Reason, text: String = "", now: Timestamp) {
        let text = text.prefix(utf8Bytes: configuration.frameLimits.maximumTextBytes)
        client.send(.disconnect(Message.Disconnect(reason: reason, text: text)), now: now)
        client.connection?.close(code: reason.closeCode, reason: text)
        client.connection = nil
        client.disconnectedAt = now
        releaseHeldSlotsOverLimit()
    }

    /// Removes a client from the room at once: it gets a disconnect message and a close with
    /// code 4002, and its player is removed, so its resume token resumes nothing.
    ///
    /// A kick is final by default: the disconnect's reason is ``Message/Disconnect/Reason/kicked``,
    /// and a ``ReconnectingSession`` stops (state ``ConnectionState/kicked(text:)``) instead of
    /// reconnecting. With `allowRejoin` the reason is ``Message/Disconnect/Reason/kickedMayRejoin``:
    /// the client reconnects with backoff, as after a lost connection, and comes back as a new
    /// player, through ``Game/admit(_:in:)`` again.
    ///
    /// - Parameters:
    ///   - client: The client id; nothing happens for an unknown one.
    ///   - text: Words for the player (at most ``FrameLimits/maximumTextBytes``).
    ///   - allowRejoin: Whether the client may come back; `false`, the default, makes the kick final.
    public func kick(_ client: UInt32, text: String = "", allowRejoin: Bool = false) {
        guard let record = clients[client] else { return }
        let text = text.prefix(utf8Bytes: configuration.frameLimits.maximumTextBytes)
        let reason: Message.Disconnect.Reason = allowRejoin ? .kickedMayRejoin : .kicked
        record.send(.disconnect(Message.Disconnect(reason: reason, text: text)), now: clock.now)
        remove(client, code: reason.closeCode, text: text, why: .kicked)
    }

    /// Counts a bad frame against `client` (the bad-frame policy, ``BadFrameLimiter``): past
    /// ``HostConfiguration/badFrameLimit`` within ``HostConfiguration/badFrameWindow`` the
    /// client gets a disconnect message (protocol error), a close with code 4004, and its
    /// player is removed.
    func countBadFrame(from client: RoomClient<G>, now: Timestamp, what: String) {
        client.metrics.badFrames += 1
        totals.badFrames += 1
        guard client.badFrames.record(at: now) else { return }
        totals.clientsDroppedForBadFrames += 1
        let text = "more than \(configuration.badFrameLimit) bad frames within \(configuration.badFrameWindow); the last: \(what)"
            .prefix(utf8Bytes: configuration.frameLimits.maximumTextBytes)
        client.send(.disconnect(Message.Disconnect(reason: .protocolError, text: text)), now: now)
        remove(client.id, code: Message.Disconnect.Reason.protocolError.closeCode, text: text, why: .protocolError)
    }

    /// Drops the players whose grace period is over, and disconnects connected clients silent
    /// for longer than ``HostConfiguration/clientTimeout`` (disconnect reason timed out, code 4005).
    func expire(now: Timestamp) {
        for id in clientOrder {
            guard let client = clients[id] else { continue }
            if client.isConnected, now - client.lastHeard > configuration.clientTimeout {
                disconnect(client, reason: .timedOut, text: "nothing heard for \(now - client.lastHeard)", now: now)
            }
            let grace = client.hasSentInput ? configuration.resumeGracePeriod : configuration.resumeGracePeriodWithoutInput
            if let since = client.disconnectedAt, now - since > grace {
                remove(id, why: .gracePeriodEnded)
                totals.heldSlotsExpired += 1
            }
        }
    }

    /// Whether a held slot could be released for a newcomer (``releaseOldestHeldSlot()``).
    var hasHeldSlot: Bool { oldestHeldSlot(countingRestored: true) != nil }

    /// The held slot (a disconnected client waiting to resume) that goes first: the one
    /// disconnected longest ago, the lowest id among equals.
    private func oldestHeldSlot(countingRestored: Bool) -> UInt32? {
        var oldest: (id: UInt32, since: Timestamp)?
        for id in clientOrder {
            guard let client = clients[id], let since = client.disconnectedAt else { continue }
            guard countingRestored || !client.isRestored else { continue }
            if oldest.map({ since < $0.since }) ?? true { oldest = (id, since) }
        }
        return oldest?.id
    }

    /// The held slots that count towards ``HostConfiguration/heldSlotLimit``.
    var limitedHeldSlotCount: Int {
        clientOrder.reduce(0) { count, id in
            guard let client = clients[id], !client.isConnected, !client.isRestored else { return count }
            return count + 1
        }
    }

    /// Lets the oldest held slots go while more than ``HostConfiguration/heldSlotLimit`` are held.
    func releaseHeldSlotsOverLimit() {
        while limitedHeldSlotCount > max(0, configuration.heldSlotLimit), let id = oldestHeldSlot(countingRestored: false) {
            remove(id, why: .heldSlotReleased)
            totals.heldSlotsReleased += 1
        }
    }

    /// Lets the oldest held slot (restored ones included) go, to make room for a new client.
    ///
    /// - Returns: Whether a slot was let go.
    @discardableResult
    func releaseOldestHeldSlot() -> Bool {
        guard let id = oldestHeldSlot(countingRestored: true) else { return false }
        remove(id, why: .heldSlotReleased)
        totals.heldSlotsReleased += 1
        return true
    }

    /// Disconnects every connected client with `reason` (their players held), for a host that
    /// shuts down.
    func disconnectAll(reason: Message.Disconnect.Reason, text: String, now: Timestamp) {
        disconnectAll(reason: reason, now: now) { _ in text }
    }

    /// Disconnects every connected client with `reason` (their players held), each with the
    /// words `text` gives for its connection (a moved client's URL on its own transport), asked
    /// before anything is sent to it.
    func disconnectAll(reason: Message.Disconnect.Reason, now: Timestamp, text: (any TransportConnection) -> String) {
        for id in clientOrder {
            guard let client = clients[id], client.isConnected else { continue }
            let text = (client.connection.map(text) ?? "").prefix(utf8Bytes: configuration.frameLimits.maximumTextBytes)
            client.send(.disconnect(Message.Disconnect(reason: reason, text: text)), now: now)
            client.connection?.close(code: reason.closeCode, reason: text)
            client.connection = nil
            client.disconnectedAt = now
        }
    }

    /// Ends every client's connection with a disconnect message and close code 4006 (room
    /// closed), for a host that closes the room; the room is not used afterwards.
    func closeAll(text: String, now: Timestamp) {
        let text = text.prefix(utf8Bytes: configuration.frameLimits.maximumTextBytes)
        for id in clientOrder {
            guard let client = clients[id], let connection = client.connection else { continue }
            client.send(.disconnect(Message.Disconnect(reason: .unspecified, text: text)), now: now)
            connection.close(code: .roomClosed, reason: text)
            client.connection = nil
            client.disconnectedAt = now
        }
    }
}
