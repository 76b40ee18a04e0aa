import Dispatch
import Synchronization
import Testing
import TickwireFoundation
@_spi(LoopThread) import TickwireIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a channel received, gathered on its loop thread for the test thread, with the loop
/// turn (see ``TurnCounter``) in which each datagram arrived.
final class DatagramInbox: Sendable {
    struct Entry: Sendable {
        var bytes: [UInt8]
        var source: SocketAddress
        var turn: Int
    }

    let entries = Mutex<[Entry]>([])
    private let arrival = DispatchSemaphore(value: 0)
    let turns = TurnCounter()

    /// Records one datagram (loop thread).
    func record(_ bytes: UnsafeRawBufferPointer, from source: SocketAddress) {
        let turn = turns.count.load(ordering: .relaxed)
        entries.withLock { $0.append(Entry(bytes: Array(bytes), source: source, turn: turn)) }
        arrival.signal()
    }

    /// Waits until `count` more datagrams have arrived, at most `seconds` in all.
    ///
    /// - Returns: `false` on timeout.
    func waitFor(_ count: Int, seconds: Double = 10) -> Bool {
        let deadline = DispatchTime.now() + seconds
        for _ in 0..<count where arrival.wait(timeout: deadline) == .timedOut { return false }
        return true
    }

    /// The payloads received so far, in order.
    var payloads: [[UInt8]] { entries.withLock { $0.map(\.bytes) } }
}

/// Counts the turns of a loop (each ``LoopTurnObserver/loopTurnEnded()``), so that a test can
/// tell which datagrams one turn delivered.
final class TurnCounter: LoopTurnObserver, Sendable {
    let count = Atomic<Int>(0)
    func loopTurnEnded() { count.add(1, ordering: .relaxed) }
}

/// Holds a loop's thread in one work item until released, so that datagrams pile up in the
/// kernel (or in a send queue) meanwhile. Every wait is bounded.
final class LoopBlocker: Sendable {
    private let entered = TestSignal()
    private let released = TestSignal()

    /// Blocks `loop` and returns once its thread is held.
    init(_ loop: EventLoop) throws {
        loop.execute { [entered, released] in
            entered.signal()
            _ = released.wait(seconds: 20)
        }
        try #require(entered.wait(seconds: 10), "the loop thread took the blocking work item")
    }

    /// Lets the loop go on.
    func release() { released.signal() }
}

@Suite("UDP channel")
struct UDPChannelTests {
    /// The pollers this platform has: the event loop's, and `poll(2)` (Darwin's) on Linux too.
    static var pollerKinds: [String] {
        #if os(Linux) && canImport(CEpoll)
        ["epoll", "poll"]
        #else
        ["poll"]
        #endif
    }

    static func startLoop(_ kind: String = "epoll") throws -> EventLoop {
        let loop = kind == "poll" ? EventLoop(poller: try PortablePoller()) : try EventLoop()
        try loop.start()
        return loop
    }

    /// Opens a channel on `loop` bound to `host` port 0 that records into `inbox`, and (when `echoes`)
    /// sends every datagram back to its source from the loop thread.
    static func open(
        _ host: String, on loop: EventLoop, limits: UDPChannel.Limits = .standard, inbox: DatagramInbox,
        echoes: Bool = false, usesBatchCalls: Bool = UDPChannel.hasBatchCalls, port: Int = 0
    ) throws -> UDPChannel {
        let address = try #require(SocketAddress(numericHost: host, port: port))
        let opened = loop.runAndWait { () -> Result<UDPChannel, SystemError> in
            Result { () throws(SystemError) -> UDPChannel in
                loop.addTurnObserver(inbox.turns)
                let box = LoopBound<UDPChannel?>(nil)
                let channel = try UDPChannel(address: address, loop: loop, limits: limits) { bytes, source in
                    inbox.record(bytes, from: source)
                    if echoes { box.value?.send(bytes, to: source) }
                }
                channel.usesBatchCalls = usesBatchCalls
                box.value = channel
                return channel
            }
        }
        return try #require(opened, "the loop ran the set-up").get()
    }

    /// Where `channel` can be reached: its bound address, with the wildcard replaced by loopback.
    static func target(_ channel: UDPChannel) throws -> SocketAddress {
        let address = channel.localAddress
        let host = address.host == "0.0.0.0" ? "127.0.0.1" : address.host == "::" ? "::1" : address.host
        return try #require(SocketAddress(numericHost: host, port: address.port))
    }

    /// Waits for `loop` to run everything queued so far (its inbox is first in, first out).
    static func drain(_ loop: EventLoop) {
        _ = loop.runAndWait { true }
    }

    @Test(
        "a datagram sent from another thread is echoed back from the loop thread, over IPv4 and IPv6, on each poller",
        arguments: ["127.0.0.1", "::1"], pollerKinds)
    func echo(host: String, pollerKind: String) throws {
        let loop = try Self.startLoop(pollerKind)
        defer { loop.stop() }
        let echoInbox = DatagramInbox()
        let clientInbox = DatagramInbox()
        let server = try Self.open(host, on: loop, inbox: echoInbox, echoes: true)
        let client = try Self.open(host, on: loop, inbox: clientInbox)
        defer { server.close(); client.close() }
        let payload: [UInt8] = Array("tick 42".utf8)
        #expect(client.send(payload, to: try Self.target(server)), "the client accepts the datagram")
        #expect(clientInbox.waitFor(1), "the echo came back within 10 s")
        let reply = try #require(clientInbox.entries.withLock { $0.first })
        #expect(reply.bytes == payload, "the echo carries the same bytes")
        #expect(reply.source == server.localAddress, "and comes from the server's address, \(server.localAddress)")
        #expect(echoInbox.entries.withLock { $0.first?.source } == client.localAddress, "the server saw the client's address")
        let serverStatistics = server.statistics
        #expect(serverStatistics.datagramsReceived == 1 && serverStatistics.bytesReceived == payload.count)
        #expect(serverStatistics.datagramsSent == 1 && serverStatistics.bytesSent == payload.count)
        #expect(client.statistics.datagramsSent == 1 && client.statistics.datagramsReceived == 1)
    }

    @Test(
        "a burst waiting in the kernel is read in turns of at most datagramsPerTurn, none lost, in order",
        arguments: pollerKinds, [true, false])
    func burstIsReadInBoundedTurns(pollerKind: String, batch: Bool) throws {
        let receiverLoop = try Self.startLoop(pollerKind)
        let senderLoop = try Self.startLoop()
        defer { receiverLoop.stop(); senderLoop.stop() }
        let perTurn = 8
        let burst = 64
        let inbox = DatagramInbox()
        let limits = UDPChannel.Limits(
            maximumDatagramBytes: 1500, datagramsPerTurn: perTurn, maximumQueuedDatagrams: 1024, maximumQueuedBytes: 1 << 20)
        let receiver = try Self.open(
            "127.0.0.1", on: receiverLoop, limits: limits, inbox: inbox, usesBatchCalls: batch && UDPChannel.hasBatchCalls)
        let sender = try Self.open("127.0.0.1", on: senderLoop, inbox: DatagramInbox(), usesBatchCalls: batch && UDPChannel.hasBatchCalls)
        defer { receiver.close(); sender.close() }
        let blocker = try LoopBlocker(receiverLoop)
        let destination = try Self.target(receiver)
        for index in 0..<burst {
            #expect(sender.send([UInt8(index), 0xAB, 0xCD], to: destination))
        }
        Self.drain(senderLoop)
        #expect(sender.statistics.datagramsSent == burst, "the sender's loop sent the whole burst: \(sender.statistics)")
        blocker.release()
        #expect(inbox.waitFor(burst), "all \(burst) datagrams arrived: \(inbox.entries.withLock { $0.count })")
        let entries = inbox.entries.withLock { $0 }
        #expect(entries.map { $0.bytes[0] } == (0..<burst).map { UInt8($0) }, "every datagram, once, in the order sent")
        let perTurnCounts = Dictionary(grouping: entries, by: \.turn).values.map(\.count)
        #expect(perTurnCounts.max() == perTurn, "turns delivered at most \(perTurn) datagrams, and some that many: \(perTurnCounts)")
        #expect(perTurnCounts.count >= burst / perTurn, "the burst took at least \(burst / perTurn) turns: \(perTurnCounts)")
        #expect(receiver.statistics.datagramsReceived == burst && receiver.statistics.bytesReceived == 3 * burst)
    }

    @Test(
        "a datagram over the maximum is counted and dropped, never delivered cut short; one at the maximum arrives",
        arguments: [true, false])
    func oversizedDatagramIsDropped(batch: Bool) throws {
        let loop = try Self.startLoop()
        defer { loop.stop() }
        let maximum = 100
        let inbox = DatagramInbox()
        let small = UDPChannel.Limits(
            maximumDatagramBytes: maximum, datagramsPerTurn: 128, maximumQueuedDatagrams: 16, maximumQueuedBytes: 1 << 16)
        let large = UDPChannel.Limits(
            maximumDatagramBytes: 9000, datagramsPerTurn: 128, maximumQueuedDatagrams: 16, maximumQueuedBytes: 1 << 16)
        let receiver = try Self.open("127.0.0.1", on: loop, limits: small, inbox: inbox, usesBatchCalls: batch && UDPChannel.hasBatchCalls)
        let sender = try Self.open("127.0.0.1", on: loop, limits: large, inbox: DatagramInbox())
        defer { receiver.close(); sender.close() }
        let destination = try Self.target(receiver)
        #expect(sender.send([UInt8](repeating: 1, count: maximum + 1), to: destination), "one byte past the maximum")
        #expect(sender.send([UInt8](repeating: 2, count: 8000), to: destination), "far past it")
        #expect(sender.send([UInt8](repeating: 3, count: maximum), to: destination), "exactly the maximum")
        #expect(inbox.waitFor(1), "the datagram at the maximum arrived")
        Self.drain(loop)
        #expect(inbox.payloads == [[UInt8](repeating: 3, count: maximum)], "only the datagram that fits was delivered, whole")
        let statistics = receiver.statistics
        #expect(statistics.receivedTooLarge == 2, "both oversized datagrams were counted: \(statistics)")
        #expect(statistics.datagramsReceived == 1 && statistics.bytesReceived == maximum)
        #expect(
            receiver.send([UInt8](repeating: 4, count: maximum + 1), to: try Self.target(sender)) == false,
            "a send past the maximum is refused")
        #expect(receiver.statistics.sendsTooLarge == 1, "and counted")
    }

    @Test("sends from several threads at once all arrive, each once")
    func sendsFromOtherThreads() throws {
        let loop = try Self.startLoop()
        let receiverLoop = try Self.startLoop()
        defer { loop.stop(); receiverLoop.stop() }
        let inbox = DatagramInbox()
        let receiver = try Self.open("::1", on: receiverLoop, inbox: inbox)
        let sender = try Self.open("::1", on: loop, inbox: DatagramInbox())
        defer { receiver.close(); sender.close() }
        let destination = try Self.target(receiver)
        let threads = 4
        let perThread = 25
        let accepted = Atomic<Int>(0)
        DispatchQueue.concurrentPerform(iterations: threads) { thread in
            for index in 0..<perThread where sender.send([UInt8(thread), UInt8(index)], to: destination) {
                accepted.add(1, ordering: .relaxed)
            }
        }
        #expect(accepted.load(ordering: .relaxed) == threads * perThread, "the queue took every datagram")
        #expect(inbox.waitFor(threads * perThread), "every datagram arrived: \(inbox.entries.withLock { $0.count })")
        let received = Set(inbox.payloads)
        #expect(received.count == threads * perThread, "each once")
        #expect(received == Set((0..<threads).flatMap { thread in (0..<perThread).map { [UInt8(thread), UInt8($0)] } }))
        Self.drain(loop)
        #expect(sender.statistics.datagramsSent == threads * perThread && sender.statistics.queuedDatagrams == 0)
    }

    @Test("the send queue takes datagrams up to its bounds and drops, counts and refuses the next one")
    func sendQueueBounds() throws {
        let loop = try Self.startLoop()
        let receiverLoop = try Self.startLoop()
        defer { loop.stop(); receiverLoop.stop() }
        let inbox = DatagramInbox()
        let limits = UDPChannel.Limits(
            maximumDatagramBytes: 1500, datagramsPerTurn: 128, maximumQueuedDatagrams: 4, maximumQueuedBytes: 250)
        let receiver = try Self.open("127.0.0.1", on: receiverLoop, inbox: inbox)
        let sender = try Self.open("127.0.0.1", on: loop, limits: limits, inbox: DatagramInbox())
        defer { receiver.close(); sender.close() }
        let destination = try Self.target(receiver)

        // Bytes first: 100 + 100 fit, a third 100 would make 300 > 250, 50 makes exactly 250.
        let blocker = try LoopBlocker(loop)
        #expect(sender.send([UInt8](repeating: 1, count: 100), to: destination))
        #expect(sender.send([UInt8](repeating: 2, count: 100), to: destination))
        #expect(sender.send([UInt8](repeating: 9, count: 100), to: destination) == false, "one byte bound past: refused")
        #expect(sender.send([UInt8](repeating: 3, count: 50), to: destination), "exactly at the byte bound: taken")
        var statistics = sender.statistics
        #expect(statistics.queuedDatagrams == 3 && statistics.queuedBytes == 250 && statistics.sendQueueFull == 1, "\(statistics)")
        // Then the count: an empty datagram fits the byte bound and is the fourth, the count bound.
        #expect(sender.send([], to: destination), "an empty datagram is the fourth: at the count bound")
        #expect(sender.send([], to: destination) == false, "a fifth is one past the count bound: refused")
        statistics = sender.statistics
        #expect(statistics.queuedDatagrams == 4 && statistics.sendQueueFull == 2, "\(statistics)")
        blocker.release()

        #expect(inbox.waitFor(4), "the four queued datagrams arrived once the loop ran")
        Self.drain(loop)  // the receiver (on its own loop) may hear them before the sender's loop has taken them off its queue
        #expect(sender.send([7], to: destination), "the queue is free again")
        #expect(inbox.waitFor(1), "and the marker sent after them arrived")
        #expect(
            inbox.payloads == [
                [UInt8](repeating: 1, count: 100), [UInt8](repeating: 2, count: 100), [UInt8](repeating: 3, count: 50), [], [7],
            ],
            "exactly the datagrams the queue took, in order; the refused ones never left")
        Self.drain(loop)
        statistics = sender.statistics
        #expect(statistics.datagramsSent == 5 && statistics.queuedDatagrams == 0 && statistics.queuedBytes == 0, "\(statistics)")
    }

    @Test("closing with datagrams queued drops and counts them; sends after close are refused; the port is free again")
    func closeWithDatagramsInFlight() throws {
        let loop = try Self.startLoop()
        let receiverLoop = try Self.startLoop()
        defer { loop.stop(); receiverLoop.stop() }
        let inbox = DatagramInbox()
        let receiver = try Self.open("127.0.0.1", on: receiverLoop, inbox: inbox)
        let sender = try Self.open("127.0.0.1", on: loop, inbox: DatagramInbox())
        let marker = try Self.open("127.0.0.1", on: loop, inbox: DatagramInbox())
        defer { receiver.close(); marker.close() }
        let destination = try Self.target(receiver)

        let blocker = try LoopBlocker(loop)
        for index in 0..<10 { #expect(sender.send([UInt8(index)], to: destination)) }
        sender.close()
        #expect(sender.isClosed)
        #expect(sender.send([99], to: destination) == false, "a send after close is refused")
        blocker.release()
        #expect(marker.send([0xEE], to: destination))
        #expect(inbox.waitFor(1), "the marker, sent after the close, arrived")
        Self.drain(loop)
        #expect(inbox.payloads == [[0xEE]], "none of the datagrams queued at close left")
        let statistics = sender.statistics
        #expect(statistics.droppedAtClose == 11 && statistics.datagramsSent == 0 && statistics.queuedDatagrams == 0, "\(statistics)")

        // The receiver closes while a thread is still sending to it: no crash, nothing after close.
        let stop = Atomic<Bool>(false)
        let flood = DispatchGroup()
        DispatchQueue.global().async(group: flood) {
            var index: UInt8 = 0
            while !stop.load(ordering: .relaxed) {
                marker.send([index], to: destination)
                index &+= 1
            }
        }
        #expect(inbox.waitFor(1), "the flood reaches the receiver")
        receiver.close()
        Self.drain(receiverLoop)  // the loop has closed the socket
        let delivered = inbox.entries.withLock { $0.count }
        Self.drain(receiverLoop)
        #expect(inbox.entries.withLock { $0.count } == delivered, "nothing is delivered once the socket is closed")
        stop.store(true, ordering: .relaxed)
        #expect(flood.wait(timeout: .now() + 10) == .success)
        // The socket is closed: its port can be bound again.
        let again = try Self.open("127.0.0.1", on: receiverLoop, inbox: DatagramInbox(), port: destination.port)
        #expect(again.localAddress.port == destination.port)
        again.close()
    }

    @Test(
        "a send the kernel refuses (EAGAIN) waits in the queue, in order, until the socket is writable; the queue's bound holds meanwhile",
        arguments: pollerKinds, [true, false])
    func refusedSendWaitsForWritability(pollerKind: String, batch: Bool) throws {
        let loop = try Self.startLoop(pollerKind)
        let receiverLoop = try Self.startLoop()
        defer { loop.stop(); receiverLoop.stop() }
        let inbox = DatagramInbox()
        let limits = UDPChannel.Limits(
            maximumDatagramBytes: 1500, datagramsPerTurn: 128, maximumQueuedDatagrams: 3, maximumQueuedBytes: 1 << 16)
        let receiver = try Self.open("127.0.0.1", on: receiverLoop, inbox: inbox)
        let sender = try Self.open(
            "127.0.0.1", on: loop, limits: limits, inbox: DatagramInbox(), usesBatchCalls: batch && UDPChannel.hasBatchCalls)
        defer { receiver.close(); sender.close() }
        let destination = try Self.target(receiver)
        let isFull = Atomic<Bool>(true)
        let taken = loop.runAndWait { () -> [Bool] in
            sender.simulatesFullSendBuffer = { isFull.load(ordering: .relaxed) }
            // On the loop thread: the first is tried at once and refused, the others queue behind it.
            return [sender.send([1], to: destination), sender.send([2], to: destination), sender.send([3], to: destination)]
        }
        #expect(taken == [true, true, true], "the queue took all three")
        #expect(sender.send([4], to: destination) == false, "a fourth is one past the queue's bound of 3")
        Self.drain(loop)  // a few turns with the socket reported writable and the kernel still refusing
        var statistics = sender.statistics
        #expect(statistics.queuedDatagrams == 3 && statistics.datagramsSent == 0 && statistics.sendQueueFull == 1, "\(statistics)")
        #expect(inbox.payloads.isEmpty, "nothing left while the kernel refused")
        isFull.store(false, ordering: .relaxed)
        #expect(inbox.waitFor(3), "once the socket takes datagrams again, the queue leaves")
        #expect(inbox.payloads == [[1], [2], [3]], "in the order sent")
        Self.drain(loop)
        statistics = sender.statistics
        #expect(statistics.queuedDatagrams == 0 && statistics.datagramsSent == 3 && statistics.sendErrors == 0, "\(statistics)")
        let direct = loop.runAndWait { sender.send([5], to: destination) }
        #expect(direct == true && inbox.waitFor(1), "with the queue empty, a send from the loop thread goes out again")
        #expect(sender.statistics.datagramsSent == 4, "at once, not through the queue: \(sender.statistics)")
    }

    @Test(
        "a datagram the kernel refuses with an error is counted and dropped, and the datagrams after it still leave",
        arguments: [true, false])
    func sendErrorsAreCounted(batch: Bool) throws {
        let loop = try Self.startLoop()
        let receiverLoop = try Self.startLoop()
        defer { loop.stop(); receiverLoop.stop() }
        let inbox = DatagramInbox()
        let receiver = try Self.open("127.0.0.1", on: receiverLoop, inbox: inbox)
        let sender = try Self.open("127.0.0.1", on: loop, inbox: DatagramInbox(), usesBatchCalls: batch && UDPChannel.hasBatchCalls)
        defer { receiver.close(); sender.close() }
        let destination = try Self.target(receiver)
        // An IPv6 destination for an IPv4 socket: sendto(2) fails with EAFNOSUPPORT.
        let wrongFamily = try #require(SocketAddress(numericHost: "::1", port: destination.port))

        let direct = loop.runAndWait { sender.send([0], to: wrongFamily) }
        #expect(direct == false, "from the loop thread the refusal is known at once")
        var statistics = sender.statistics
        #expect(statistics.sendErrors == 1 && statistics.lastError?.code == EAFNOSUPPORT, "\(statistics)")

        // From another thread, queued in one batch: bad, good, bad, good.
        let blocker = try LoopBlocker(loop)
        for (index, target) in [wrongFamily, destination, wrongFamily, destination].enumerated() {
            #expect(sender.send([UInt8(index)], to: target), "queued")
        }
        blocker.release()
        #expect(inbox.waitFor(2), "both good datagrams arrived")
        Self.drain(loop)
        #expect(inbox.payloads == [[1], [3]], "the good datagrams, in order; the refused ones dropped")
        statistics = sender.statistics
        #expect(statistics.sendErrors == 3 && statistics.datagramsSent == 2 && statistics.queuedDatagrams == 0, "\(statistics)")
        let call = statistics.lastError?.call
        #expect(
            call == (batch && UDPChannel.hasBatchCalls ? "sendmmsg" : "sendto"), "the error names the call: \(String(describing: call))")
    }

    @Test("a second channel cannot bind a port in use (no SO_REUSEADDR for UDP)")
    func portInUseIsRefused() throws {
        let loop = try Self.startLoop()
        defer { loop.stop() }
        let first = try Self.open("127.0.0.1", on: loop, inbox: DatagramInbox())
        defer { first.close() }
        let error = #expect(throws: SystemError.self, "binding the same port again fails") {
            _ = try Self.open("127.0.0.1", on: loop, inbox: DatagramInbox(), port: first.localAddress.port)
        }
        #expect(error?.call == "bind" && error?.code == EADDRINUSE, "bind(2) says the address is in use: \(String(describing: error))")
    }

    @Test("a channel bound to :: also takes IPv4 datagrams, and answers to their IPv4-mapped source")
    func dualStack() throws {
        let loop = try Self.startLoop()
        defer { loop.stop() }
        let serverInbox = DatagramInbox()
        let clientInbox = DatagramInbox()
        let server = try Self.open("::", on: loop, inbox: serverInbox, echoes: true)
        let client = try Self.open("127.0.0.1", on: loop, inbox: clientInbox)
        defer { server.close(); client.close() }
        let destination = try #require(SocketAddress(numericHost: "127.0.0.1", port: server.localAddress.port))
        #expect(client.send([1, 2, 3], to: destination))
        #expect(clientInbox.waitFor(1), "the echo came back to the IPv4 client")
        let source = try #require(serverInbox.entries.withLock { $0.first?.source })
        #expect(source.host == "::ffff:127.0.0.1" && source.port == client.localAddress.port, "the server saw \(source)")
        #expect(clientInbox.payloads == [[1, 2, 3]])
    }
}
