import Synchronization

/// The rooms of one tick pass, one list per tick thread, which the threads claim one at a time.
///
/// A thread claims its own list from the front; once that is empty, it claims from the back of
/// the other threads' lists. Every element is handed out exactly once.
final class TickPassQueue<Element>: @unchecked Sendable {
    // Unchecked: `shares` never changes after init, and its elements (rooms, not Sendable) are
    // touched only by the one thread that `claim(forThread:)` hands each of them to, until the
    // pass ends; the claims themselves go through `bounds`, a Mutex.
    private let shares: [[Element]]
    /// Per list: the next room from the front, and one past the next room from the back.
    private let bounds: Mutex<[(front: Int, back: Int)]>
    /// Whether any room of the pass ran a tick, set from the tick threads.
    let ticked = Atomic<Bool>(false)

    init(shares: [[Element]]) {
        self.shares = shares
        bounds = Mutex(shares.map { (front: 0, back: $0.count) })
    }

    /// The next room for `thread` to tick: from the front of its own list, then from the back
    /// of the first other list with rooms left; `nil` when every room is taken.
    func claim(forThread thread: Int) -> Element? {
        bounds.withLock { bounds in
            if bounds[thread].front < bounds[thread].back {
                bounds[thread].front += 1
                return shares[thread][bounds[thread].front - 1]
            }
            for offset in 1..<max(bounds.count, 1) {
                let other = (thread + offset) % bounds.count
                if bounds[other].front < bounds[other].back {
                    bounds[other].back -= 1
                    return shares[other][bounds[other].back]
                }
            }
            return nil
        }
    }
}

extension Host {
    /// The home tick thread of a room (0 is the thread that drives the host), or `nil` when the
    /// host runs no room of that name. The room ticks there unless that thread is still busy
    /// with its other rooms when another thread has finished its own.
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

    /// Runs every room's due ticks, the tick threads at the same time, and returns when all
    /// have finished.
    ///
    /// Each thread ticks its own rooms first, then takes over rooms of a thread that has not
    /// reached them yet (from the far end of that thread's list), so that a thread woken late
    /// or holding slower rooms does not keep the others waiting at the end of the pass. A room
    /// still ticks on one thread at a time: each is claimed exactly once per pass.
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
        let now = clock.now
        // A thread none of whose rooms is due sleeps through the pass (a room that falls due
        // meanwhile ticks in the next pass, at most 5 ms later under run(until:)).
        let busy = shares.map { rooms in !rooms.isEmpty && rooms.contains(where: { $0.loop.nextDeadline <= now }) }
        guard busy.contains(true) else { return false }
        let queue = TickPassQueue(shares: shares)
        let jobs: [(() -> Void)?] = busy.indices.map { thread in
            guard busy[thread] else { return nil }
            return {
                var ticked = false
                while let room = queue.claim(forThread: thread) {
                    var ticksRun = 0
                    listener.batchingSends { ticksRun = room.advance().ticksRun }
                    if ticksRun > 0 { ticked = true }
                }
                if ticked { queue.ticked.store(true, ordering: .relaxed) }
            }
        }
        if pool == nil { pool = TickThreadPool(workers: tickThreadCount - 1) }
        pool?.run(jobs)
        // run(_:) returned after every job: the pool's mutex orders the store before this load.
        return queue.ticked.load(ordering: .relaxed)
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
