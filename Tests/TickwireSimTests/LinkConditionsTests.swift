import Testing

@testable import TickwireSim

@Suite("LinkConditions")
struct LinkConditionsTests {
    @Test(
        "a URL's scheme picks the delivery of its transport",
        arguments: [
            ("ws", LinkConditions.Delivery.reliable), ("wss", .reliable), ("WSS", .reliable), ("udp", .unreliable),
        ])
    func deliveryForScheme(scheme: String, delivery: LinkConditions.Delivery) {
        #expect(LinkConditions.Delivery(urlScheme: scheme) == delivery)
    }

    @Test("a scheme Tickwire has no transport for has no delivery")
    func unknownScheme() {
        #expect(LinkConditions.Delivery(urlScheme: "http") == nil)
        #expect(LinkConditions.Delivery(urlScheme: "") == nil)
    }
}
