import Testing
import TickwirePacket
import TickwireSim

@testable import TickwireUDPTransport

@Suite("UDP connection backpressure")
struct UDPConnectionCoreTests {
    @Test("a reliable frame that would pass the reliable send queue is refused as backed up, and readiness says so first")
    func reliableQueueBound() {
        var limits = UDPTransportLimits()
        limits.packet.reliableSendQueueMessages = 4
        let core = UDPConnectionCore(limits: limits)
        var flushes = 0
        for index in 0..<4 {
            #expect(core.readiness(budgetBytes: .max) == .taken, "frame \(index) fits")
            #expect(core.send([0x40, UInt8(index)], requestFlush: { flushes += 1 }) == .taken)
        }
        #expect(flushes == 1, "the loop is told once until it flushes")
        #expect(core.readiness(budgetBytes: .max) == .backedUp, "four reliable frames fill a queue of four")
        #expect(core.send([0x40, 9], requestFlush: {}) == .backedUp, "a fifth reliable frame is refused, not queued")
        #expect(core.bufferedBytes == 8)
        let (frames, close) = core.takeOutbox()
        #expect(frames.count == 4 && frames.allSatisfy { $0.channel == .reliableOrdered } && close == nil)
        #expect(core.send([0x40, 9], requestFlush: {}) == .backedUp, "taken by the loop but not acknowledged: still counted")
        #expect(core.bufferedBytes == 8, "unacknowledged reliable bytes stay buffered")
    }

    @Test("the frames waiting for the loop are bounded by count and bytes, and a budget below them backs up")
    func outboxBounds() {
        var limits = UDPTransportLimits()
        limits.maximumQueuedFrames = 3
        limits.maximumQueuedBytes = 100
        let core = UDPConnectionCore(limits: limits)
        #expect(core.send([0x04] + Array(repeating: 0, count: 59), requestFlush: {}) == .taken)
        #expect(core.send([0x04] + Array(repeating: 0, count: 59), requestFlush: {}) == .backedUp, "120 bytes would pass 100")
        #expect(core.readiness(budgetBytes: 59) == .backedUp, "60 bytes wait, over a budget of 59")
        #expect(core.readiness(budgetBytes: 60) == .taken)
        #expect(core.send([0x05], requestFlush: {}) == .taken)
        #expect(core.send([0x05], requestFlush: {}) == .taken)
        #expect(core.send([0x05], requestFlush: {}) == .backedUp, "a fourth frame passes the count of 3")
        core.close(code: .normalClosure, reason: "bye", requestFlush: {})
        #expect(core.send([0x05], requestFlush: {}) == .closed)
        #expect(core.readiness(budgetBytes: .max) == .closed)
        let (frames, close) = core.takeOutbox()
        #expect(frames.count == 3, "frames sent before the close still go")
        #expect(close == UDPCloseMessage(code: .normalClosure, reason: "bye"))
    }
}
