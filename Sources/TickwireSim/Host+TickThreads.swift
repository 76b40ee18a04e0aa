import Synchronization

/// Whether any room of a pass ran a tick, set from the tick threads.
private final class PassOutcome: Sendable {
    let ticked = Atomic<Bool>(false)
}

extension Host {
    /// The tick thread a room runs on (0 is the thread that drives the host), or `nil` when
    /// the host runs no room of that name.
    ///
    /// - Parameter name: The room's name.
    /// - Returns: The thread's number, in 0..<``tickThreadCount``.
    public func tickThread(ofRoom name: String) -> Int? { threadOfRoom[name] }

    /// The tick thread a new room goes on: the one with the fewest rooms, the lowest-numbered
    /// among equals (so with one room per thread, rooms fill the threads in order).
    func leastLoadedTickThread() -> Int {
        var counts = Array(repeating: 0, count: tickThreadCount)
        for thread in threadOfRoom.values where thread < counts.count { counts[thread] += 1 }
        var best = 0
        for thread in counts.indices where counts[thread] < counts[best] { best = thread }
        return best
    }

    /// Runs every room's due ticks, each room on its tick thread, the threads at the same time,
    /// and returns when all have finished.
    ///
    /// - Returns: Whether any room ran a tick.
    func runTickPass() -> Bool {
        var shares = Array(repeating: [Room<G>](), count: tickThreadCount)
        for name in roomOrder {
            guard let room = roomsByName[name] else { continue }
            shares[threadOfRoom[name] ?? 0].append(room)
        }
        let listener = self.listener
        guard tickThreadCount > 1 else { return Self.tick(shares[0], listener: listener) }
        let outcome = PassOutcome()
        let now = clock.now
        var jobs: [(() -> Void)?] = []
        jobs.reserveCapacity(shares.count)
        for rooms in shares {
            // A thread none of whose rooms is due sleeps through the pass (a room that falls due
            // meanwhile ticks in the next pass, at most 5 ms later under run(until:)).
            guard !rooms.isEmpty, rooms.contains(where: { $0.loop.nextDeadline <= now }) else {
                jobs.append(nil)
                continue
            }
            jobs.append {
                if Self.tick(rooms, listener: listener) { outcome.ticked.store(true, ordering: .relaxed) }
            }
        }
        guard jobs.contains(where: { $0 != nil }) else { return false }
        if pool == nil { pool = TickThreadPool(workers: tickThreadCount - 1) }
        pool?.run(jobs)
        // run(_:) returned after every job: the pool's mutex orders the store before this load.
        return outcome.ticked.load(ordering: .relaxed)
    }

    /// Ticks `rooms` one after another on the calling thread, each in one batch of sends: its
    /// clients' frames leave together, right after its tick.
    ///
    /// - Returns: Whether any of them ran a tick.
    private static func tick(_ rooms: [Room<G>], listener: any TransportListener) -> Bool {
        var ticked = false
        for room in rooms {
            var ticksRun = 0
            listener.batchingSends { ticksRun = room.advance().ticksRun }
            if ticksRun > 0 { ticked = true }
        }
        return ticked
    }

    /// Stops the tick threads and waits for them; the next pass that needs them starts them again.
    func stopTickThreads() {
        pool?.stop()
        pool = nil
    }
}
