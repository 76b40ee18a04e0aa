import Testing

@testable import ArenaGame

@Suite("tickwire load's retries after refusals")
struct RefusedRetriesTests {
    @Test("with 2 retries the third refusal gives up, the second does not", arguments: [0, 1, 2, RefusedRetries.maximumLimit])
    func limit(retries: Int) {
        var budget = RefusedRetries(limit: retries)
        for refusal in 0..<retries {
            let givesUp = budget.recordRefusal()
            #expect(!givesUp, "refusal \(refusal + 1) of \(retries + 1) leaves a retry")
        }
        let givesUp = budget.recordRefusal()
        #expect(givesUp, "refusal \(retries + 1), one past the \(retries) retries, gives up")
        #expect(budget.refusals == retries + 1)
    }

    @Test("players that gave up are counted, merged, named in the hint with the flag, and in the JSON")
    func gaveUpReported() {
        var outcomes = ConnectionOutcomes()
        outcomes.recordFailure(.netcodeDenied)
        outcomes.recordGaveUp()
        var other = ConnectionOutcomes()
        other.recordGaveUp()
        outcomes.merge(other)
        #expect(outcomes.gaveUp == 2)
        let hint = outcomes.hint(clients: 10, rooms: 1) ?? ""
        #expect(hint.contains("2 players gave up after 3 refused attempts each"), "got: \(hint)")
        #expect(hint.contains("--refused-retries"), "got: \(hint)")
        #expect(hint.contains("--udp-servers"), "netcode.io's denial names the flag for more servers: \(hint)")
        #expect(outcomes.jsonMembers(clients: 10, rooms: 1).contains("\"gaveUp\":2"))
    }
}
