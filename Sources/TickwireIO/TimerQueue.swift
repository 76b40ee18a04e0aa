/// A handle to a timer scheduled on an ``EventLoop``; pass it to the loop's `cancel(_:)`.
package struct TimerHandle: Hashable, Sendable {
    let id: UInt64
}

/// Pending timers ordered by deadline: a binary min-heap of (deadline, id) plus the actions by id.
///
/// Cancelling removes the action; the heap entry is skipped when it comes due. Not thread-safe:
/// it belongs to the event loop thread.
struct TimerQueue {
    private struct Entry {
        var deadline: UInt64
        var id: UInt64
        func precedes(_ other: Entry) -> Bool {
            deadline != other.deadline ? deadline < other.deadline : id < other.id
        }
    }

    private var heap: [Entry] = []
    private var actions: [UInt64: () -> Void] = [:]
    private var nextID: UInt64 = 1

    /// The number of timers scheduled and not cancelled.
    var count: Int { actions.count }

    /// Schedules `action` to run at `deadline` (monotonic nanoseconds).
    mutating func schedule(at deadline: UInt64, _ action: @escaping () -> Void) -> TimerHandle {
        let id = nextID
        nextID += 1
        actions[id] = action
        heap.append(Entry(deadline: deadline, id: id))
        siftUp(heap.count - 1)
        return TimerHandle(id: id)
    }

    /// Cancels a timer; cancelling one that already ran does nothing.
    mutating func cancel(_ handle: TimerHandle) {
        actions[handle.id] = nil
    }

    /// The earliest deadline among live timers, discarding cancelled entries at the top.
    mutating func nextDeadline() -> UInt64? {
        while let top = heap.first {
            if actions[top.id] != nil { return top.deadline }
            popTop()
        }
        return nil
    }

    /// Removes and returns the actions whose deadline is at or before `now`, earliest first.
    mutating func popDue(now: UInt64) -> [() -> Void] {
        var due: [() -> Void] = []
        while let top = heap.first, top.deadline <= now {
            popTop()
            if let action = actions.removeValue(forKey: top.id) { due.append(action) }
        }
        return due
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        if !heap.isEmpty {
            heap[0] = last
            siftDown(0)
        }
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var smallest = parent
            if left < heap.count, heap[left].precedes(heap[smallest]) { smallest = left }
            if right < heap.count, heap[right].precedes(heap[smallest]) { smallest = right }
            if smallest == parent { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
