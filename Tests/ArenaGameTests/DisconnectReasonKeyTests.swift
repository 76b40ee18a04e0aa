import Testing

@testable import ArenaGame

@Suite("tickwire load's disconnect reasons, grouped")
struct DisconnectReasonKeyTests {
    @Test(
        "fractions round to one decimal; whole numbers, full stops and words stay",
        arguments: [
            ("timed out: nothing heard for 5.028078058 seconds", "timed out: nothing heard for 5.0 seconds"),
            ("timed out: nothing heard for 5.0462 seconds", "timed out: nothing heard for 5.0 seconds"),
            ("timed out: nothing heard for 12.96 seconds", "timed out: nothing heard for 13.0 seconds"),
            ("closed 4005 after 3 attempts.", "closed 4005 after 3 attempts."),
            ("netcode.io: connection timed out", "netcode.io: connection timed out"),
            ("at 127.0.0.1:7778", "at 127.0.0.1:7778"),
            ("", ""),
            ("a huge 99999999999999999999999.5 stays", "a huge 99999999999999999999999.5 stays"),
        ])
    func grouping(reason: String, key: String) {
        #expect(DisconnectReasonKey.grouping(reason) == key)
    }
}
