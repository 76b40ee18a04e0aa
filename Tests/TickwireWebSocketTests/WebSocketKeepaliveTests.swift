import Testing

@testable import TickwireWebSocket

@Suite("WebSocketKeepalive")
struct WebSocketKeepaliveTests {
    @Test("pings after one interval, matches its pong, and schedules the next ping")
    func pingPong() throws {
        var keepalive = WebSocketKeepalive(interval: 100, timeout: 30, now: 0)
        #expect(keepalive.poll(now: 99) == .idle, "no ping before the interval has passed")
        guard case .sendPing(let payload) = keepalive.poll(now: 100) else {
            Issue.record("a ping is due at the interval")
            return
        }
        #expect(payload == [0, 0, 0, 0, 0, 0, 0, 1], "the first ping carries sequence number 1, big-endian")
        #expect(keepalive.isAwaitingPong && keepalive.nextDeadline == 130, "the pong deadline is sent-at plus timeout")
        #expect(keepalive.poll(now: 110) == .idle, "no second ping while one is outstanding")
        let matched = keepalive.pongReceived(payload, now: 112)
        #expect(matched, "the echo of the outstanding ping matches")
        #expect(keepalive.lastRoundTrip == 12 && !keepalive.isAwaitingPong && keepalive.nextDeadline == 212)
        guard case .sendPing(let second) = keepalive.poll(now: 212) else {
            Issue.record("the next ping is due one interval after the pong")
            return
        }
        #expect(second == [0, 0, 0, 0, 0, 0, 0, 2])
    }

    @Test("a missing pong times out at the deadline, not before")
    func timeout() {
        var keepalive = WebSocketKeepalive(interval: 10, timeout: 5, now: 0)
        _ = keepalive.poll(now: 10)
        #expect(keepalive.poll(now: 14) == .idle, "one tick before the deadline the connection is still alive")
        #expect(keepalive.poll(now: 15) == .timedOut, "at the deadline the peer is declared gone")
    }

    @Test("stale, foreign and unsolicited pongs do not count")
    func wrongPongs() {
        var keepalive = WebSocketKeepalive(interval: 10, timeout: 5, now: 0)
        let unsolicited = keepalive.pongReceived([0, 0, 0, 0, 0, 0, 0, 0], now: 1)
        #expect(!unsolicited, "an unsolicited pong matches nothing")
        _ = keepalive.poll(now: 10)
        let foreign = keepalive.pongReceived([0, 0, 0, 0, 0, 0, 0, 9], now: 11)
        #expect(!foreign, "a pong for another sequence number does not match")
        let short = keepalive.pongReceived([1], now: 11)
        #expect(!short, "a short payload does not match")
        #expect(keepalive.isAwaitingPong, "the ping is still outstanding")
    }

    @Test("traffic from the peer postpones the next ping")
    func activity() {
        var keepalive = WebSocketKeepalive(interval: 10, timeout: 5, now: 0)
        keepalive.activityObserved(now: 8)
        #expect(keepalive.poll(now: 10) == .idle && keepalive.nextDeadline == 18, "a live peer needs no ping until 18")
    }
}
