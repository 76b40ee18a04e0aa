import Synchronization
import Testing
import TickwireCodec
import TickwireSimTestSupport

@testable import TickwireSim

/// How a ``ReconnectingSession`` takes a connection the server refused before any game message
/// (``TransportRefusal``): 401 and 403 are final, other statuses are retried.
@Suite("Connection refusals")
struct ConnectionRefusalTests {
    /// A fake connection, as a transport whose server refused its handshake reports it: it has
    /// sent nothing and ends at once with the refusal.
    final class RefusedConnection: TransportConnection {
        let connectionID: UInt64 = 1
        let refusal: TransportRefusal
        private let drained = Mutex(false)

        init(_ refusal: TransportRefusal) { self.refusal = refusal }

        func send(_ frame: [UInt8]) -> TransportSendResult { .closed }
        var bufferedBytes: Int { 0 }
        func drain() -> [TransportEvent] {
            drained.withLock { done in
                defer { done = true }
                return done ? [] : [.closed(.refused(refusal))]
            }
        }
        func close(code: CloseCode, reason: String) {}
        var isClosed: Bool { drained.withLock { $0 } }
    }

    /// How many connections a session opened.
    final class OpenCount {
        var value = 0
    }

    /// A session whose every attempt is refused with `status`, and how many attempts it opened.
    private func refusedSession(status: Int) -> (ReconnectingSession<DotsGame>, OpenCount, VirtualClock) {
        let clock = VirtualClock()
        let opened = OpenCount()
        let session = ReconnectingSession(game: DotsGame(orbCount: 1), clock: clock, policy: ReconnectingSessionTests.policy) {
            opened.value += 1
            return RefusedConnection(TransportRefusal(status: status, reason: "Unauthorized", text: "the token expired"))
        }
        return (session, opened, clock)
    }

    @Test("a refusal with 401 or 403 ends the loop after one attempt, with the status and words", arguments: [401, 403])
    func finalStatuses(status: Int) {
        let (session, opened, clock) = refusedSession(status: status)
        var states: [ConnectionState] = []
        session.onStateChange = { states.append($0) }
        for _ in 0..<500 {
            session.tick(input: nil)
            clock.advance(by: .milliseconds(10))
        }
        let refused = ConnectionState.refusedConnection(TransportRefusal(status: status, reason: "Unauthorized", text: "the token expired"))
        #expect(states == [.connecting(attempt: 1), refused], "one attempt, then refused; got \(states)")
        #expect(opened.value == 1, "5 s of ticks opened one connection")
        #expect(session.lastFailure == "refused by the server: \(status) Unauthorized: the token expired")
    }

    @Test("a refusal with another status (a busy server's 503) is a failed attempt, retried with backoff")
    func otherStatusesRetry() {
        let (session, opened, clock) = refusedSession(status: 503)
        for _ in 0..<300 {
            session.tick(input: nil)
            clock.advance(by: .milliseconds(10))
        }
        #expect(!session.state.isFinal, "still trying: \(session.state)")
        #expect(opened.value >= 3, "3 s of ticks retried (\(opened.value) attempts)")
    }

    /// A fake opener failure, as a transport whose token endpoint refused reports it.
    struct FakeRefusalError: TransportRefusalError {
        let transportRefusal: TransportRefusal?
    }

    @Test("an opener that throws a refusal with 401 ends the loop after one attempt; with 503 it is retried", arguments: [401, 503])
    func refusalThrownByTheOpener(status: Int) {
        let clock = VirtualClock()
        let opened = OpenCount()
        let refusal = TransportRefusal(status: status, reason: "Nope", text: "no token for you")
        let session = ReconnectingSession(game: DotsGame(orbCount: 1), clock: clock, policy: ReconnectingSessionTests.policy) {
            () throws(FakeRefusalError) -> any TransportConnection in
            opened.value += 1
            throw FakeRefusalError(transportRefusal: refusal)
        }
        for _ in 0..<300 {
            session.tick(input: nil)
            clock.advance(by: .milliseconds(10))
        }
        if status == 401 {
            #expect(session.state == .refusedConnection(refusal))
            #expect(opened.value == 1, "one attempt, got \(opened.value)")
        } else {
            #expect(!session.state.isFinal, "a 503 is retried: \(session.state)")
            #expect(opened.value >= 3, "3 s of ticks retried (\(opened.value) attempts)")
        }
    }

    @Test("finalConnectionRefusals decides which statuses are final")
    func configurableStatuses() {
        let (session, opened, clock) = refusedSession(status: 401)
        session.finalConnectionRefusals = []
        for _ in 0..<300 {
            session.tick(input: nil)
            clock.advance(by: .milliseconds(10))
        }
        #expect(!session.state.isFinal, "401 is retried when it is not listed: \(session.state)")
        #expect(opened.value >= 3)
    }
}
