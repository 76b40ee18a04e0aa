import Testing
import TickwireCodec
@testable import TickwireWebSocket

@Suite("WebSocketProtocolMachine")
struct WebSocketProtocolMachineTests {
    @Test("a text message sent by a client arrives at a server intact")
    func clientToServerText() throws {
        let client = try WebSocketProtocolMachine(role: .client)
        let server = try WebSocketProtocolMachine(role: .server)
        var wire: [UInt8] = []
        try client.sendText("Hello, Tickwire ✓", output: &wire)
        var reply: [UInt8] = []
        let events = try server.receive(wire, output: &reply)
        #expect(events == [.text("Hello, Tickwire ✓")], "the server should see exactly the text the client sent")
        #expect(reply.isEmpty, "a data message needs no reply")
    }
}
