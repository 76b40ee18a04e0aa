import Testing

@testable import TickwireSim

/// The bounded set of used connect tokens: once each, held until expiry, full at its capacity.
@Suite("Used connect tokens")
struct UsedConnectTokensTests {
    static func tag(_ n: Int) -> [UInt8] { [UInt8(n & 0xFF), UInt8(n >> 8)] + Array(repeating: 0, count: 14) }

    @Test("a token is admitted once, then refused as used until it expires")
    func once() {
        var used = UsedConnectTokens(capacity: 4)
        #expect(used.use(tag: Self.tag(1), expireTimestamp: 100, now: 10) == .admitted)
        #expect(used.check(tag: Self.tag(1), now: 20) == .alreadyUsed)
        #expect(used.use(tag: Self.tag(1), expireTimestamp: 100, now: 99) == .alreadyUsed)
        #expect(used.count == 1)
    }

    @Test("at capacity the set takes exactly its capacity; one more is refused as full, not forgotten")
    func capacity() {
        let capacity = 8
        var used = UsedConnectTokens(capacity: capacity)
        for n in 0..<capacity { #expect(used.use(tag: Self.tag(n), expireTimestamp: 100, now: 10) == .admitted, "token \(n)") }
        #expect(used.count == capacity)
        #expect(used.check(tag: Self.tag(capacity), now: 10) == .full)
        #expect(used.use(tag: Self.tag(capacity), expireTimestamp: 100, now: 10) == .full, "one past the limit")
        #expect(used.use(tag: Self.tag(0), expireTimestamp: 100, now: 10) == .alreadyUsed, "every remembered token is still refused")
        #expect(used.count == capacity)
    }

    @Test("a full set forgets expired tokens and takes new ones in their place")
    func expiredMakeRoom() {
        var used = UsedConnectTokens(capacity: 2)
        #expect(used.use(tag: Self.tag(1), expireTimestamp: 50, now: 10) == .admitted)
        #expect(used.use(tag: Self.tag(2), expireTimestamp: 100, now: 10) == .admitted)
        #expect(used.use(tag: Self.tag(3), expireTimestamp: 100, now: 49) == .full, "token 1 expires at 50, not before")
        #expect(used.use(tag: Self.tag(3), expireTimestamp: 100, now: 50) == .admitted)
        #expect(used.count == 2)
        #expect(used.use(tag: Self.tag(2), expireTimestamp: 100, now: 60) == .alreadyUsed)
    }

    @Test("the host's default limit is 65 536 used tokens")
    func defaultLimit() {
        #expect(HostConfiguration().maximumUsedTokens == 65_536)
        #expect(HostConfiguration.defaultMaximumUsedTokens == 65_536)
    }
}
