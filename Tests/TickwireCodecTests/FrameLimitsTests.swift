import Testing
import TickwireCodec

/// Each message-level limit of ``FrameLimits/standard``, tested at the limit (accepted by the
/// encoder and the decoder) and one past it (refused by both, the decoder before allocating).
@Suite("FrameLimits")
struct FrameLimitsTests {
    static let standard = FrameLimits.standard
    /// Limits far above the standard, to encode a message the standard decoder must refuse.
    static let relaxed = FrameLimits(
        maximumInputsPerMessage: 1_000, maximumInputBytes: 10_000, maximumTextBytes: 10_000,
        maximumResumeTokenBytes: 10_000, maximumRoomNameBytes: 10_000, maximumHelloPayloadBytes: 10_000
    )

    /// A limit, the message that sits exactly at it (from a size), and the error one past it.
    struct Case: Sendable, CustomTestStringConvertible {
        let name: String
        let limit: Int
        let make: @Sendable (Int) -> Message
        let error: @Sendable (Int) -> FrameError
        var testDescription: String { name }
    }

    static let cases: [Case] = [
        Case(
            name: "inputs per message", limit: standard.maximumInputsPerMessage,
            make: { .input(.init(ackTick: 1, newestSequence: 1_000, inputs: Array(repeating: [7], count: $0))) },
            error: { .tooManyInputs(count: UInt64($0), limit: standard.maximumInputsPerMessage) }),
        Case(
            name: "input bytes", limit: standard.maximumInputBytes,
            make: { .input(.init(ackTick: nil, newestSequence: 3, inputs: [[1], [UInt8](repeating: 2, count: $0)])) },
            error: { .lengthExceeded(field: "input", length: UInt64($0), limit: standard.maximumInputBytes) }),
        Case(
            name: "reject text", limit: standard.maximumTextBytes,
            make: { .reject(.init(reason: .roomFull, text: String(repeating: "x", count: $0))) },
            error: { .lengthExceeded(field: "reject text", length: UInt64($0), limit: standard.maximumTextBytes) }),
        Case(
            name: "disconnect text", limit: standard.maximumTextBytes,
            make: {
                .disconnect(.init(reason: .kicked, text: String(repeating: "é", count: $0 / 2) + String(repeating: "x", count: $0 % 2)))
            },
            error: { .lengthExceeded(field: "disconnect text", length: UInt64($0), limit: standard.maximumTextBytes) }),
        Case(
            name: "hello resume token", limit: standard.maximumResumeTokenBytes,
            make: { .hello(.init(schemaFingerprint: 9, resumeToken: [UInt8](repeating: 3, count: $0))) },
            error: { .lengthExceeded(field: "resume token", length: UInt64($0), limit: standard.maximumResumeTokenBytes) }),
        Case(
            name: "welcome resume token", limit: standard.maximumResumeTokenBytes,
            make: {
                .welcome(.init(clientID: 1, tickRate: 60, currentTick: 1, serverTime: 1, resumeToken: [UInt8](repeating: 4, count: $0)))
            },
            error: { .lengthExceeded(field: "resume token", length: UInt64($0), limit: standard.maximumResumeTokenBytes) }),
        Case(
            name: "room name", limit: standard.maximumRoomNameBytes,
            make: { .hello(.init(schemaFingerprint: 9, room: String(repeating: "r", count: $0))) },
            error: { .lengthExceeded(field: "room name", length: UInt64($0), limit: standard.maximumRoomNameBytes) }),
        Case(
            name: "hello payload", limit: standard.maximumHelloPayloadBytes,
            make: { .hello(.init(schemaFingerprint: 9, payload: [UInt8](repeating: 5, count: $0))) },
            error: { .lengthExceeded(field: "hello payload", length: UInt64($0), limit: standard.maximumHelloPayloadBytes) }),
    ]

    @Test("a field exactly at its limit is encoded and decoded", arguments: cases)
    func atLimit(testCase: Case) throws {
        let message = testCase.make(testCase.limit)
        let body = try message.encodeBody(limits: Self.standard)
        #expect(try Message(type: message.type, body: body, limits: Self.standard) == message)
    }

    @Test("a field one past its limit is refused by the encoder and the decoder", arguments: cases)
    func pastLimit(testCase: Case) throws {
        let message = testCase.make(testCase.limit + 1)
        let expected = testCase.error(testCase.limit + 1)
        #expect(throws: expected, "the encoder must not produce what a peer refuses") {
            try message.encodeBody(limits: Self.standard)
        }
        let body = try message.encodeBody(limits: Self.relaxed)
        #expect(throws: expected) { try Message(type: message.type, body: body, limits: Self.standard) }
    }

    @Test("a body exactly at the body limit is accepted, one byte more is refused")
    func bodyLimit() throws {
        let limits = FrameLimits(maximumBodyBytes: 100)
        let type = try #require(MessageType(rawValue: 0x41))
        let atLimit = Message.application(type: type, body: [UInt8](repeating: 1, count: 100))
        #expect(try Message(type: type, body: atLimit.encodeBody(limits: limits), limits: limits) == atLimit)
        let past = Message.application(type: type, body: [UInt8](repeating: 1, count: 101))
        #expect(throws: FrameError.bodyTooLarge(size: 101, limit: 100)) { try past.encodeBody(limits: limits) }
        #expect(throws: FrameError.bodyTooLarge(size: 101, limit: 100)) {
            try Message(type: type, body: [UInt8](repeating: 1, count: 101), limits: limits)
        }
    }

    @Test("fittingText keeps a text that fits and cuts a longer one between characters")
    func fittingText() throws {
        let limits = FrameLimits(maximumTextBytes: 5)
        #expect(limits.fittingText("abcde") == "abcde")
        #expect(limits.fittingText("abcdef") == "abcde")
        #expect(limits.fittingText("abcdé") == "abcd", "é takes two bytes and would make six")
        #expect(limits.fittingText("👍👍") == "👍")
        let long = FrameLimits.standard.fittingText(String(repeating: "é", count: 200))
        #expect(try Message.reject(.init(reason: .roomFull, text: long)).encodeBody().count <= 2 + 2 + 256)
    }
}
