import Testing

@testable import TickwireNetcode

struct ReplayProtectionTests {
    @Test("a sequence is accepted once, and a fresh window accepts anything")
    func acceptOnce() {
        var window = ReplayProtection()
        #expect(!window.isAlreadyReceived(0))
        #expect(!window.isAlreadyReceived(12_345))
        window.advance(to: 0)
        #expect(window.isAlreadyReceived(0), "0 was received: a replay")
        #expect(!window.isAlreadyReceived(1))
    }

    @Test("the window's edges: most recent - 256 is refused, most recent - 255 accepted once")
    func edges() {
        var window = ReplayProtection()
        window.advance(to: 1000)
        #expect(window.mostRecentSequence == 1000)
        #expect(window.isAlreadyReceived(1000 - 256), "exactly one window behind is too old")
        #expect(window.isAlreadyReceived(0))
        #expect(!window.isAlreadyReceived(1000 - 255), "the oldest sequence inside the window is still new")
        window.advance(to: 1000 - 255)
        #expect(window.isAlreadyReceived(1000 - 255))
        #expect(!window.isAlreadyReceived(1001))
        #expect(!window.isAlreadyReceived(999))
    }

    @Test("out-of-order packets inside the window are each accepted once")
    func outOfOrder() {
        var window = ReplayProtection()
        for sequence: UInt64 in [5, 3, 9, 4, 8] {
            #expect(!window.isAlreadyReceived(sequence))
            window.advance(to: sequence)
        }
        for sequence: UInt64 in [5, 3, 9, 4, 8] { #expect(window.isAlreadyReceived(sequence)) }
        for sequence: UInt64 in [6, 7, 10] { #expect(!window.isAlreadyReceived(sequence)) }
    }

    @Test("a slot reused by a newer sequence refuses the older one it replaced")
    func slotReuse() {
        var window = ReplayProtection()
        window.advance(to: 300)
        #expect(window.isAlreadyReceived(300 - 256), "same slot, older: refused")
        #expect(!window.isAlreadyReceived(300 + 256), "same slot, newer: accepted")
    }

    @Test("sequences at the top of the 64-bit space are not misjudged (no overflow)")
    func topOfSequenceSpace() {
        var window = ReplayProtection()
        window.advance(to: .max - 10)
        #expect(!window.isAlreadyReceived(.max - 5))
        #expect(!window.isAlreadyReceived(.max - 200))
        #expect(window.isAlreadyReceived(.max - 10 - 256))
        #expect(window.isAlreadyReceived(.max - 10))
    }
}
