import Foundation
import Testing
import TickwireVectorTestSupport

@testable import TickwireCodec

/// Decodes every `Protocol/vectors/frame-*.hex` vector and re-encodes it byte for byte.
///
/// Format (see `Protocol/vectors/README.md`): `#` lines describe the vector; `# mode: X` names
/// the connection's compression mode (default `none`); a line starting `# frame` begins the
/// next frame of a sequence sent on one connection; everything else is hex.
@Suite("Frame vectors")
struct FrameVectorTests {
    struct Vector {
        var mode = CompressionMode.none
        var limits = FrameLimits.standard
        var frames: [[UInt8]] = []
    }

    static let vectorsDirectory = VectorFile.protocolDirectory.appendingPathComponent("vectors")

    static func load(_ name: String) throws -> Vector {
        let file = try VectorFile.load("vectors/" + name)
        var vector = Vector(frames: file.frames)
        if let mode = file["mode"] {
            vector.mode = try #require(
                [CompressionMode.none, .perFrame, .streaming].first { $0.description == mode }, "\(mode) is not a compression mode")
        }
        for limit in file.values("limit") {
            // A receiver that lowered a limit (7.2): `# limit: NAME VALUE`.
            let words = limit.split(separator: " ")
            let value = try #require(words.count == 2 ? Int(words[1]) : nil, "`# limit: \(limit)` is not `# limit: NAME VALUE`")
            switch words[0] {
            case "maximumFrameBytes": vector.limits.maximumFrameBytes = value
            case "maximumBodyBytes": vector.limits.maximumBodyBytes = value
            default: Issue.record("`# limit: \(limit)` names no frame limit")
            }
        }
        return vector
    }

    static func hex(_ bytes: [UInt8]) -> String { VectorFile.hex(bytes, separator: " ") }

    static let app = MessageType(rawValue: 0x40)!

    /// The connect token of `frame-hello-connect-token.hex`: expire timestamp 1 800 000 060, nonce
    /// 40 41 … 57, and the encrypted private part as the vector holds it (bytes 49..<1073 of the
    /// frame; `TickwireTokensTests` checks that it is the one `vectors/tokens/token-01` mints).
    static let helloVectorToken: Message.Hello.ConnectToken? = {
        guard let frame = (try? load("frame-hello-connect-token.hex"))?.frames.first, frame.count >= 1073 else { return nil }
        return Message.Hello.ConnectToken(
            expireTimestamp: 1_800_000_060, nonce: Array(0x40..<0x58), encryptedPrivateData: Array(frame[49..<1073]))
    }()

    /// Every valid vector and the messages its frames carry.
    static let validVectors: [String: [Message]] = [
        "frame-hello.hex": [
            .hello(
                .init(
                    schemaFingerprint: 0x0123_4567_89AB_CDEF, compressionModes: .all, room: "arena",
                    resumeToken: [0xDE, 0xAD, 0xBE, 0xEF], payload: Array("ada".utf8)
                ))
        ],
        "frame-welcome.hex": [
            .welcome(
                .init(
                    clientID: 7, tickRate: 60, currentTick: 1_000, serverTime: 16_666_000, compression: .streaming,
                    resumeToken: [1, 2, 3, 4, 5, 6, 7, 8]
                ))
        ],
        "frame-reject.hex": [.reject(.init(reason: .schemaMismatch, text: "schema differs"))],
        "frame-reject-redirect.hex": [.reject(.init(reason: .redirect, text: "ws://10.0.0.2:7777/r"))],
        "frame-snapshot.hex": [
            .snapshot(
                .init(
                    tick: 1_000, baselineTick: 998, lastProcessedInput: 57, serverTime: 16_683_333,
                    delta: [0x03, 0x81, 0x40, 0x12, 0x34, 0x80]
                ))
        ],
        "frame-input.hex": [.input(.init(ackTick: 998, newestSequence: 58, inputs: [[0x05, 0x01], [0x05, 0x00], [0x01, 0x00]]))],
        "frame-input-render-times.hex": [
            .input(
                .init(
                    ackTick: 998, newestSequence: 58, inputs: [[0x05, 0x01], [0x05, 0x00]],
                    renderTimes: [.init(tick: 997, fraction: 128), .init(tick: 996, fraction: 64)]))
        ],
        "frame-hello-render-times.hex": [
            .hello(.init(schemaFingerprint: 0x0123_4567_89AB_CDEF, compressionModes: .all, room: "arena", offersRenderTimes: true))
        ],
        "frame-welcome-render-times.hex": [
            .welcome(
                .init(
                    clientID: 7, tickRate: 20, currentTick: 1_000, serverTime: 40_000_000, compression: .perFrame, acceptsRenderTimes: true)
            )
        ],
        "frame-ping.hex": [.ping(.init(clientTime: 5_000_000))],
        "frame-pong.hex": [.pong(.init(clientTime: 5_000_000, serverTime: 16_700_000))],
        "frame-pong-hold.hex": [.pong(.init(clientTime: 5_000_000, serverTime: 16_700_000, hold: 21_250))],
        "frame-hello-connect-token.hex": [
            .hello(
                .init(
                    schemaFingerprint: 0x0123_4567_89AB_CDEF, compressionModes: [.perFrame, .streaming], room: "red",
                    payload: Array("ada".utf8), connectToken: helloVectorToken))
        ],
        "frame-hello-version-2.hex": [
            .hello(.init(protocolVersion: 2, schemaFingerprint: 0x0123_4567_89AB_CDEF, compressionModes: .all, room: "arena"))
        ],
        "frame-hello-pong-hold.hex": [
            .hello(.init(schemaFingerprint: 0x0123_4567_89AB_CDEF, compressionModes: .all, room: "arena", offersPongHold: true))
        ],
        "frame-hello-text-fields.hex": [
            .hello(.init(schemaFingerprint: 0x0123_4567_89AB_CDEF, compressionModes: .all, room: "arena", offersTextFields: true))
        ],
        "frame-welcome-pong-hold.hex": [
            .welcome(
                .init(clientID: 7, tickRate: 20, currentTick: 1_000, serverTime: 40_000_000, compression: .perFrame, acceptsPongHold: true))
        ],
        "frame-disconnect.hex": [.disconnect(.init(reason: .leaving, text: "bye"))],
        "frame-disconnect-moved.hex": [.disconnect(.init(reason: .moved, text: "ws://10.0.0.3:7777/r"))],
        "frame-disconnect-kicked-may-rejoin.hex": [.disconnect(.init(reason: .kickedMayRejoin, text: "afk"))],
        "frame-stats.hex": [
            .stats(
                .init(
                    tick: 3_600, tickDurationP50: 850, tickDurationP99: 2_100, tickDurationMax: 4_800,
                    cpuPerMille: 420, connectedClients: 32, bytesOutPerSecond: 1_500_000
                ))
        ],
        "frame-application.hex": [.application(type: app, body: Array("gg".utf8))],
        "frame-perframe-snapshot.hex": [
            .snapshot(
                .init(
                    tick: 2_000, baselineTick: nil, lastProcessedInput: 0, serverTime: 33_333_333,
                    delta: Array(repeating: [0x01, 0x7F, 0x20, 0x00], count: 16).flatMap { $0 }
                ))
        ],
        "frame-streaming-sequence.hex": [
            .snapshot(
                .init(
                    tick: 1_000, baselineTick: 998, lastProcessedInput: 57, serverTime: 16_683_333,
                    delta: Array(repeating: [0x01, 0x7F, 0x20, 0x00], count: 8).flatMap { $0 })),
            .snapshot(
                .init(
                    tick: 1_001, baselineTick: 999, lastProcessedInput: 58, serverTime: 16_700_000,
                    delta: Array(repeating: [0x01, 0x7F, 0x20, 0x00], count: 8).flatMap { $0 })),
            .application(type: app, body: Array("0123456789abcdefghij".utf8)),
            .application(type: app, body: Array("0123456789abcdefghij0123456789abcdefghij".utf8)),
        ],
    ]

    /// Every error vector and the error decoding its (last) frame must throw.
    static let invalidVectors: [String: FrameError] = [
        "frame-error-empty.hex": .emptyFrame,
        "frame-error-reserved-type.hex": .reservedMessageType(0),
        "frame-error-unknown-type.hex": .unknownMessageType(10),
        "frame-error-truncated.hex": .truncated(offset: 0, needed: 1),
        "frame-error-overlong-varint.hex": .nonCanonicalVarint(offset: 0),
        "frame-error-varint-overflow.hex": .varintOverflow(offset: 0),
        "frame-error-trailing-bytes.hex": .trailingBytes(type: 6, count: 1),
        "frame-error-pong-trailing-bytes.hex": .trailingBytes(type: 7, count: 1),
        "frame-error-too-many-inputs.hex": .tooManyInputs(count: 33, limit: 32),
        "frame-error-baseline.hex": .valueOutOfRange(field: "baseline distance", value: 1 << 32, maximum: UInt64(UInt32.max)),
        "frame-error-utf8.hex": .invalidUTF8(field: "disconnect text"),
        "frame-error-compressed-in-mode-none.hex": .unexpectedCompression(type: 6, mode: 0),
        "frame-error-render-times-truncated.hex": .truncated(offset: 13, needed: 1),
        "frame-error-render-tick-range.hex": .valueOutOfRange(field: "render tick", value: 1 << 32, maximum: UInt64(UInt32.max)),
        "frame-error-zlib-bomb.hex": .inflation(.ratioExceeded(ratio: 256, inputBytes: 2_055)),
        "frame-error-hello-connect-token-truncated.hex": .truncated(offset: 34, needed: 14),
        "frame-error-reserved-bits.hex": .reservedBits(field: "hello flags", value: 5),
        "frame-error-unknown-compression-mode.hex": .unknownCompressionMode(3),
        "frame-error-input-sequence-underflow.hex": .inputSequenceUnderflow(newest: 1, count: 3),
        "frame-error-length-exceeded.hex": .lengthExceeded(field: "reject text", length: 257, limit: 256),
        "frame-error-frame-too-large.hex": .frameTooLarge(size: 10, limit: 9),
        "frame-error-body-too-large.hex": .bodyTooLarge(size: 9, limit: 8),
        "frame-error-stream-ended.hex": .compressionStreamEnded,
        "frame-error-stream-ended-output.hex": .compressionStreamEnded,
        "frame-error-context-broken.hex": .compressionContextBroken,
        "frame-error-truncated-varint.hex": .truncated(offset: 2, needed: 1),
        "frame-error-truncated-fixed.hex": .truncated(offset: 5, needed: 5),
        "frame-error-truncated-text.hex": .truncated(offset: 5, needed: 3),
        "frame-error-order-length-before-truncated.hex": .lengthExceeded(field: "reject text", length: 257, limit: 256),
        "frame-error-welcome-prediction-without-entropy.hex": .unknownCompressionMode(0x20),
        "frame-error-zlib-truncated.hex": .inflation(.truncated),
        "frame-error-order-size-before-type.hex": .frameTooLarge(size: 3, limit: 2),
        "frame-error-order-compression-before-type.hex": .unexpectedCompression(type: 10, mode: 0),
        "frame-error-order-inflation-before-type.hex": .inflation(.truncated),
    ]

    /// Error vectors whose frames before the last are refused too (the one that breaks the context).
    static let refusedBeforeLast: Set<String> = ["frame-error-context-broken.hex"]

    @Test("every frame vector file is in the tables, and every table entry has a file")
    func coverage() throws {
        let files = try FileManager.default.contentsOfDirectory(atPath: Self.vectorsDirectory.path)
            .filter { $0.hasPrefix("frame-") && $0.hasSuffix(".hex") }
        #expect(
            Set(files) == Set(Self.validVectors.keys).union(Self.invalidVectors.keys),
            "vector files and the test's tables must match one to one")
    }

    @Test("each valid vector decodes to its messages and re-encodes byte for byte", arguments: Array(validVectors.keys).sorted())
    func decodesAndReencodes(name: String) throws {
        let expected = try #require(Self.validVectors[name])
        let vector = try Self.load(name)
        try #require(vector.frames.count == expected.count, "\(name) holds \(vector.frames.count) frames, expected \(expected.count)")
        let decompressor = try FrameDecompressor(mode: vector.mode)
        let compressor = try FrameCompressor(mode: vector.mode)
        for (index, (frame, message)) in zip(vector.frames, expected).enumerated() {
            #expect(try decompressor.decode(frame) == message, "\(name) frame \(index)")
            let encoded = try compressor.encode(message)
            #expect(encoded == frame, "\(name) frame \(index) re-encodes as \(Self.hex(encoded))")
        }
    }

    @Test("each error vector is refused with its error", arguments: Array(invalidVectors.keys).sorted())
    func isRefused(name: String) throws {
        let expected = try #require(Self.invalidVectors[name])
        let vector = try Self.load(name)
        let decompressor = try FrameDecompressor(mode: vector.mode, limits: vector.limits)
        // An empty frame is a file with no hex at all.
        let frames = vector.frames.isEmpty ? [[]] : vector.frames
        for frame in frames.dropLast() {
            if Self.refusedBeforeLast.contains(name) {
                #expect(throws: FrameError.self, "\(name): the frames before the last are refused") { try decompressor.decode(frame) }
            } else {
                _ = try decompressor.decode(frame)
            }
        }
        #expect(throws: expected, "\(name)") { try decompressor.decode(frames[frames.count - 1]) }
    }
}
