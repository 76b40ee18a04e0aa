/// What a host keeps on its driving thread for ``HostMetrics``: the figures of the rooms it
/// closed, and what it published last.
struct HostMetricsBookkeeping {
    /// Sums over rooms that have closed.
    var closedRooms = RoomMetrics()
    /// Room ticks dropped by rooms that have closed.
    var closedRoomsTicksDropped = 0
    /// The room count published last, so that a change is published even without a tick.
    var publishedRoomCount = -1
}

extension Host {
    /// Adds a closing room's counts to the host's totals.
    func retireMetrics(of room: Room<G>) {
        let metrics = room.metrics
        metricsBookkeeping.closedRooms.bytesInTotal += metrics.bytesInTotal
        metricsBookkeeping.closedRooms.bytesOutTotal += metrics.bytesOutTotal
        metricsBookkeeping.closedRooms.snapshotsSent += metrics.snapshotsSent
        metricsBookkeeping.closedRooms.snapshotsSkipped += metrics.snapshotsSkipped
        metricsBookkeeping.closedRooms.snapshotsNotCaptured += metrics.snapshotsNotCaptured
        metricsBookkeeping.closedRooms.snapshotsNotEncoded += metrics.snapshotsNotEncoded
        metricsBookkeeping.closedRooms.badFrames += metrics.badFrames
        metricsBookkeeping.closedRooms.pongsSent += metrics.pongsSent
        metricsBookkeeping.closedRooms.pingHoldSecondsTotal += metrics.pingHoldSecondsTotal
        metricsBookkeeping.closedRoomsTicksDropped += Int(clamping: metrics.ticks.ticksDropped)
    }

    /// Publishes the host's figures (``publishedMetrics``) on the driving thread, between passes:
    /// the rooms are not ticking, so they are read without a lock; the one lock is the
    /// publication's, taken once.
    ///
    /// - Parameter passDuration: How long this pass's ticks took, observed in the tick duration
    ///   histogram; `nil` when no room ticked.
    func publishMetrics(passDuration: Duration?) {
        metricsBookkeeping.publishedRoomCount = roomOrder.count
        // One walk over the rooms, under the lock (a scrape waits microseconds at most): the
        // per-room list is refilled in place, so a pass allocates nothing here.
        publishedMetrics.update { metrics in
            var totals = metricsBookkeeping.closedRooms
            var ticksDropped = metricsBookkeeping.closedRoomsTicksDropped
            var connected = 0, held = 0
            metrics.roomClients.removeAll(keepingCapacity: true)
            for name in roomOrder {
                guard let room = roomsByName[name] else { continue }
                let counts = room.clientCounts
                connected += counts.connected
                held += counts.held
                metrics.roomClients.append(HostMetrics.RoomClients(room: name, connected: counts.connected, held: counts.held))
                totals.bytesInTotal += room.bytesInTotal
                totals.bytesOutTotal += room.bytesOutTotal
                totals.snapshotsSent += room.totals.snapshotsSent
                totals.snapshotsSkipped += room.totals.snapshotsSkipped
                totals.snapshotsNotCaptured += room.totals.snapshotsNotCaptured
                totals.snapshotsNotEncoded += room.totals.snapshotsNotEncoded
                totals.badFrames += room.totals.badFrames
                totals.pongsSent += room.totals.pongsSent
                totals.pingHoldSecondsTotal += room.totals.pingHoldSecondsTotal
                ticksDropped += Int(clamping: room.loop.statistics.ticksDropped)
            }
            metrics.rooms = roomOrder.count
            metrics.connectedClients = connected
            metrics.heldClients = held
            metrics.pendingHandshakes = pending.count
            metrics.tickThreads = tickThreadCount
            metrics.isShuttingDown = isShuttingDown
            metrics.joins = joins
            metrics.reconnects = reconnects
            metrics.resumes = resumes
            if metrics.rejections != rejections { metrics.rejections = rejections }
            metrics.bytesIn = totals.bytesInTotal
            metrics.bytesOut = totals.bytesOutTotal
            metrics.snapshotsSent = totals.snapshotsSent
            metrics.snapshotsSkipped = totals.snapshotsSkipped
            metrics.snapshotsNotCaptured = totals.snapshotsNotCaptured
            metrics.snapshotsNotEncoded = totals.snapshotsNotEncoded
            metrics.badFrames = totals.badFrames
            metrics.pongsSent = totals.pongsSent
            metrics.pingHoldSeconds = totals.pingHoldSecondsTotal
            metrics.ticksDropped = ticksDropped
            metrics.idleRoomsClosed = idleRoomsClosed
            if let passDuration { metrics.tickDuration.observe(Double(passDuration.wholeNanoseconds) / 1e9) }
            metrics.tickOverruns = Int(clamping: passStatistics.overruns)
            if fleet != nil { metrics.fleet = fleetMetrics }
        }
    }
}
