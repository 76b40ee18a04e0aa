import TickwireCodec

/// Sample messages of every type, shared by the message, frame and compression tests.
enum MessageSamples {
    static let all: [Message] = [
        .hello(
            .init(
                schemaFingerprint: 0x0123_4567_89AB_CDEF, compressionModes: .all, room: "arena-1",
                resumeToken: [1, 2, 3, 4], payload: Array("ada".utf8)
            )),
        .hello(.init(protocolVersion: 7, schemaFingerprint: 0, compressionModes: [], room: "")),
        .welcome(
            .init(
                clientID: 42, tickRate: 60, currentTick: 123_456, serverTime: 9_876_543_210,
                compression: .streaming, resumeToken: [0xAA, 0xBB]
            )),
        .reject(.init(reason: .roomFull, text: "room arena-1 is full (16 of 16)")),
        .reject(.init(reason: .init(rawValue: 0x8001))),
        .snapshot(.init(tick: 1_000, baselineTick: 997, lastProcessedInput: 88, serverTime: 16_666_000, delta: [1, 2, 3, 4, 5])),
        .snapshot(.init(tick: 0, baselineTick: nil, lastProcessedInput: 0, serverTime: 0, delta: [])),
        .snapshot(.init(tick: .max, baselineTick: 0, lastProcessedInput: .max, serverTime: .max, delta: [0xFF])),
        .input(.init(ackTick: 995, newestSequence: 90, inputs: [[0x01, 0x10], [0x01, 0x0F], [0x00, 0x0F]])),
        .input(.init(ackTick: nil, newestSequence: 0, inputs: [])),
        .input(.init(ackTick: .max, newestSequence: 1, inputs: [[]])),
        .ping(.init(clientTime: 1_234_567)),
        .pong(.init(clientTime: 1_234_567, serverTime: 987_654_321)),
        .disconnect(.init(reason: .timedOut, text: "no input for 10 s")),
        .stats(
            .init(
                tick: 5_000, tickDurationP50: 900, tickDurationP99: 2_400, tickDurationMax: 7_000,
                cpuPerMille: 1_350, connectedClients: 64, bytesOutPerSecond: 1_250_000
            )),
        .application(type: MessageType(rawValue: 0x40)!, body: Array("chat: hi".utf8)),
        .application(type: MessageType(rawValue: 0x7F)!, body: []),
    ]
}
