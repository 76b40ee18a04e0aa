import Testing

@testable import TickwireWebSocket

/// Compressed server frames produced by an independent implementation — Python `websockets`
/// 17.4 (`PerMessageDeflate.encode` + `Frame.serialize`, server side, unmasked) — recorded
/// once as hex, so that Tickwire's inflating side is checked against someone else's deflating side.
@Suite("permessage-deflate interop vectors")
struct PerMessageDeflateInteropTests {
    static let hello: [WebSocketEvent] = [.text("Hello"), .text("Hello"), .text("Hello, Hello, Hello world")]
    static let steps: [UInt8] = Array(stride(from: 0, to: 256, by: 3).map { UInt8($0) })
    static let stepsTimesFour = steps + steps + steps + steps

    /// (what the vector shows, server_no_context_takeover, server_max_window_bits, wire hex, expected events).
    static let vectors: [(String, Bool, Int, String, [WebSocketEvent])] = [
        ("three texts with context takeover", false, 15, "c107f248cdc9c90700c105f200110000c10d02133a0ac89442797e514e0a00", hello),
        (
            "three texts without context takeover", true, 15,
            "c107f248cdc9c90700c107f248cdc9c90700c112f248cdc9c9d751f040a214caf38b72520000", hello
        ),
        (
            "9-bit window", false, 9,
            "c261626066e3e4e11712959096535451d7d2353036b3b4b17772f5f0f60b0c098f8a4d484ecbccc92f2aada8ae6b6c69efea9d3079dacc39f3172d5db17addc62ddb77ed3d70f8d8c933e72f5dbd71fbdec327cf5fbdfdf0f9dbcf3fff1946bca90000c2071a359536a60200",
            [.binary(stepsTimesFour), .binary(stepsTimesFour)]
        ),
        (
            "fragmented text, each fragment flushed, then an empty text", false, 15, "4109f248cd01000000ffff8004cac90700c10100",
            [.text("Hello"), .text("")]
        ),
        (
            "empty binary then 1000 zeros", false, 15, "c20100c20b62601805a360140c770000",
            [.binary([]), .binary([UInt8](repeating: 0, count: 1000))]
        ),
    ]

    @Test("a Tickwire client inflates what Python websockets deflated", arguments: 0..<5)
    func inflatesPythonOutput(index: Int) throws {
        let (name, noContextTakeover, windowBits, hex, expected) = Self.vectors[index]
        let parameters = PerMessageDeflateParameters(serverNoContextTakeover: noContextTakeover, serverMaxWindowBits: windowBits)
        let client = try WebSocketProtocolMachine(role: .client, compression: parameters)
        var output: [UInt8] = []
        let events = try client.receive(bytes(hex: hex), output: &output)
        #expect(events == expected, "\(name): the messages must inflate to what websockets compressed")
    }
}
