import Testing
import TickwireFoundation

@testable import TickwireCodec

@Suite("FrameCompressor")
struct FrameCompressorTests {
    static let modes: [CompressionMode] = [.none, .perFrame, .streaming]

    @Test("every sample message survives encode and decode, in order, in every mode", arguments: modes)
    func roundTrip(mode: CompressionMode) throws {
        let compressor = try FrameCompressor(mode: mode)
        let decompressor = try FrameDecompressor(mode: mode)
        for message in MessageSamples.all + MessageSamples.all {
            let frame = try compressor.encode(message)
            #expect(try decompressor.decode(frame) == message, "\(message.type) in mode \(mode)")
            let uncompressedSize = try message.encodeBody().count + 1
            #expect(frame.count <= uncompressedSize, "a frame is compressed only when that makes it smaller")
        }
        if mode == .none { #expect(compressor.compressedFrameCount == 0) }
    }

    @Test("a repetitive body is compressed; a tiny or random one is sent as is", arguments: [CompressionMode.perFrame, .streaming])
    func compressOnlyWhenSmaller(mode: CompressionMode) throws {
        let compressor = try FrameCompressor(mode: mode)
        let repetitive = Message.snapshot(
            .init(
                tick: 10, baselineTick: nil, lastProcessedInput: 0, serverTime: 0,
                delta: Array(repeating: [0x10, 0x20, 0x30, 0x40], count: 100).flatMap { $0 }
            ))
        let compressed = try compressor.encode(repetitive)
        #expect(compressed[0] == 0x84, "the compressed flag must be set on a repetitive snapshot")
        #expect(compressed.count < 100)
        let tiny = try compressor.encode(.ping(.init(clientTime: 1)))
        #expect(tiny == [0x06, 0x01], "a 1-byte body cannot shrink, so it goes as is")
        var random = SplitMix64(seed: 7)
        let noise = (0..<200).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        let noisy = try compressor.encode(.application(type: MessageType(rawValue: 0x50)!, body: noise))
        #expect(noisy == [0x50] + noise, "random bytes do not compress, so they go as is")
    }

    @Test("handshake messages are never compressed, even when they would shrink")
    func handshakeUncompressed() throws {
        let compressor = try FrameCompressor(mode: .streaming)
        let reject = Message.reject(.init(reason: .unknownRoom, text: String(repeating: "no such room ", count: 19)))
        let frame = try compressor.encode(reject)
        #expect(frame[0] == MessageType.reject.rawValue)
        #expect(compressor.compressedFrameCount == 0)
    }

    /// Total frame bytes for `messages` without compression, per frame and streaming, checking
    /// that the streaming receiver decodes every frame.
    static func sizes(of messages: [Message]) throws -> (raw: Int, perFrame: Int, streaming: Int) {
        let perFrame = try FrameCompressor(mode: .perFrame)
        let streaming = try FrameCompressor(mode: .streaming)
        let receiver = try FrameDecompressor(mode: .streaming)
        var sizes = (raw: 0, perFrame: 0, streaming: 0)
        for message in messages {
            sizes.raw += try message.encodeBody().count + 1
            sizes.perFrame += try perFrame.encode(message).count
            let frame = try streaming.encode(message)
            sizes.streaming += frame.count
            #expect(try receiver.decode(frame) == message)
        }
        return sizes
    }

    @Test("a streaming context compresses small repetitive frames far better than per-frame zlib")
    func streamingBeatsPerFrame() throws {
        var random = SplitMix64(seed: 11)
        // Input messages: each repeats the previous message's inputs for redundancy.
        var inputs: [[UInt8]] = []
        var inputMessages: [Message] = []
        for sequence in UInt32(1)...600 {
            inputs.insert([UInt8(random.next() % 4), 0x7F, 0x00, UInt8(sequence % 3)], at: 0)
            inputs = Array(inputs.prefix(4))
            inputMessages.append(.input(.init(ackTick: sequence + 1_000, newestSequence: sequence, inputs: inputs)))
        }
        let input = try Self.sizes(of: inputMessages)
        // Snapshots of 12 entities of 10 bytes, one or two of which move a little each tick.
        var entities = (0..<12).map { id in [UInt8(id), 0x01, 0x7F, 0x20, 0x00, 0x40, 0x10, 0x00, 0x00, 0x03] }
        var snapshots: [Message] = []
        for tick in UInt32(1)...600 {
            for _ in 0..<2 { entities[Int(random.next() % 12)][4] &+= UInt8(random.next() % 3) }
            snapshots.append(
                .snapshot(
                    .init(
                        tick: tick + 5_000, baselineTick: tick + 4_998, lastProcessedInput: tick,
                        serverTime: UInt64(tick) * 16_667, delta: entities.flatMap { $0 }
                    )))
        }
        let snapshot = try Self.sizes(of: snapshots)
        print("600 input frames: raw \(input.raw) B, per-frame \(input.perFrame) B, streaming \(input.streaming) B")
        print("600 snapshot frames: raw \(snapshot.raw) B, per-frame \(snapshot.perFrame) B, streaming \(snapshot.streaming) B")
        #expect(
            input.streaming * 2 < input.perFrame, "streaming \(input.streaming) B should be under half of per-frame \(input.perFrame) B")
        #expect(
            snapshot.streaming * 2 < snapshot.perFrame,
            "streaming \(snapshot.streaming) B should be under half of per-frame \(snapshot.perFrame) B")
    }

    @Test(
        "a long seeded mix of compressed, uncompressed, huge and handshake frames keeps both windows in step",
        arguments: [9, 15])
    func streamingStaysInSync(windowBits: Int) throws {
        let compressor = try FrameCompressor(mode: .streaming, windowBits: windowBits)
        let decompressor = try FrameDecompressor(mode: .streaming)
        var random = SplitMix64(seed: 0x5EED + UInt64(windowBits))
        var history: [[UInt8]] = []
        let appType = try #require(MessageType(rawValue: 0x60))
        func noise(_ count: Int) -> [UInt8] { (0..<count).map { _ in UInt8(truncatingIfNeeded: random.next()) } }
        for index in 0..<1_500 {
            let message: Message
            switch random.next() % 10 {
            case 0, 1: message = .application(type: appType, body: noise(Int(random.next() % 300)))
            case 2, 3:
                message = .application(type: appType, body: Array(repeating: UInt8(random.next() % 3), count: Int(random.next() % 400)))
            case 4 where !history.isEmpty:
                // A repeat of an earlier body: decodable only if the receiver's window holds it,
                // whether that body travelled compressed or as stored blocks.
                message = .application(type: appType, body: history[Int(random.next() % UInt64(history.count))])
            case 5 where index % 50 == 5: message = .application(type: appType, body: noise(65_535 + Int(random.next() % 80_000)))
            case 6: message = .application(type: appType, body: [])
            case 7: message = .reject(.init(reason: .roomFull, text: "full full full full full"))
            default:
                message = .input(.init(ackTick: UInt32(index), newestSequence: UInt32(index + 3), inputs: [[1, 2], [1, 2], noise(2)]))
            }
            if case .application(_, let body) = message, !body.isEmpty { history = Array((history + [body]).suffix(8)) }
            let frame = try compressor.encode(message)
            let decoded = try decompressor.decode(frame)
            guard decoded == message else {
                Issue.record(
                    "frame \(index) (\(frame.count) bytes, compressed: \(frame[0] & 0x80 != 0)) decoded differently: the windows diverged")
                return
            }
        }
        #expect(compressor.compressedFrameCount > 300, "the mix must hold many compressed frames")
        #expect(compressor.frameCount - compressor.compressedFrameCount > 300, "the mix must hold many uncompressed frames")
    }

    @Test("a body whose ratio the receiver would refuse is sent uncompressed", arguments: [CompressionMode.perFrame, .streaming])
    func senderRespectsRatio(mode: CompressionMode) throws {
        let compressor = try FrameCompressor(mode: mode)
        let decompressor = try FrameDecompressor(mode: mode)
        let zeros = Message.application(type: MessageType(rawValue: 0x42)!, body: [UInt8](repeating: 0, count: 200_000))
        let frame = try compressor.encode(zeros)
        #expect(frame[0] == 0x42, "200 kB of zeros deflate over 256:1, which the standard limits refuse")
        #expect(try decompressor.decode(frame) == zeros)
    }

    @Test("the encoder refuses a body that would make the uncompressed frame too large")
    func encoderFrameLimit() throws {
        let limits = FrameLimits(maximumFrameBytes: 101, maximumBodyBytes: 1000)
        let compressor = try FrameCompressor(mode: .streaming, limits: limits)
        let type = try #require(MessageType(rawValue: 0x41))
        #expect(try compressor.compress(type: type, body: [UInt8](repeating: 0, count: 100)).count <= 101)
        #expect(throws: FrameError.frameTooLarge(size: 102, limit: 101)) {
            try compressor.compress(type: type, body: [UInt8](repeating: 0, count: 101))
        }
        #expect(throws: FrameError.reservedMessageType(0)) { try compressor.compress(type: MessageType(rawValue: 0)!, body: [1]) }
    }

    @Test("zlib settings out of range are a typed error")
    func badSettings() {
        #expect(throws: FrameError.zlibSetup(.invalidLevel(10))) { try FrameCompressor(mode: .perFrame, level: 10) }
        #expect(throws: FrameError.zlibSetup(.invalidWindowBits(8))) { try FrameCompressor(mode: .streaming, windowBits: 8) }
    }

    /// A compressible application message whose body is `count` bytes.
    static func repetitive(_ count: Int) throws -> Message {
        .application(type: try #require(MessageType(rawValue: 0x41)), body: [UInt8](repeating: 0x2A, count: count))
    }

    @Test("per-frame: a body one byte under smallestDeflatedBodyBytes goes as is, one at the limit is deflated")
    func perFrameThreshold() throws {
        let limit = FrameCompressor.smallestDeflatedBodyBytes
        let under = try FrameCompressor(mode: .perFrame).encode(Self.repetitive(limit - 1))
        #expect(under == [0x41] + [UInt8](repeating: 0x2A, count: limit - 1), "under the limit: no deflate, sent as is")
        let compressor = try FrameCompressor(mode: .perFrame)
        let at = try compressor.encode(Self.repetitive(limit))
        #expect(at[0] == 0xC1 && at.count < limit, "at the limit a compressible body is deflated")
        #expect(try FrameDecompressor(mode: .perFrame).decode(at) == Self.repetitive(limit))
    }

    @Test("streaming deflates bodies of any size into the history; mode none never does")
    func thresholdOnlyPerFrame() throws {
        let streaming = try FrameCompressor(mode: .streaming)
        let receiver = try FrameDecompressor(mode: .streaming)
        _ = try receiver.decode(try streaming.encode(Self.repetitive(40)))
        let again = try streaming.encode(Self.repetitive(40))
        #expect(again[0] == 0xC1 && again.count < 10, "a repeat of a short body copies from the history")
        #expect(try receiver.decode(again) == Self.repetitive(40))
        let none = FrameCompressor.uncompressed()
        #expect(try none.encode(Self.repetitive(500))[0] == 0x41)
        #expect(none.mode == .none && none.compressedFrameCount == 0)
    }

    @Test("per-frame: after deflate saved under 10%, probeInterval frames go as they are, then deflate is tried again")
    func perFrameProbe() throws {
        let compressor = try FrameCompressor(mode: .perFrame)
        var random = SplitMix64(seed: 21)
        let noise = Message.application(
            type: try #require(MessageType(rawValue: 0x41)),
            body: (0..<300).map { _ in UInt8(truncatingIfNeeded: random.next()) })
        #expect(try compressor.encode(noise)[0] == 0x41, "random bytes do not shrink")
        for index in 0..<FrameCompressor.probeInterval {
            let frame = try compressor.encode(Self.repetitive(500))
            #expect(frame[0] == 0x41, "frame \(index) after a frame that did not pay goes as is")
        }
        let probe = try compressor.encode(Self.repetitive(500))
        #expect(probe[0] == 0xC1, "the probe deflates again")
        #expect(try compressor.encode(Self.repetitive(500))[0] == 0xC1, "and compression continues while it pays")
    }

    @Test("the uncompressed compressor and decompressor cannot fail and keep their limits")
    func uncompressedFactories() throws {
        let limits = FrameLimits(maximumFrameBytes: 50, maximumBodyBytes: 49)
        let compressor = FrameCompressor.uncompressed(limits: limits)
        let decompressor = FrameDecompressor.uncompressed(limits: limits)
        #expect(compressor.limits == limits && decompressor.limits == limits)
        let ping = Message.ping(.init(clientTime: 9))
        #expect(try decompressor.decode(try compressor.encode(ping)) == ping)
        #expect(throws: FrameError.unexpectedCompression(type: 6, mode: 0)) { try decompressor.decode([0x86, 0x01]) }
    }
}
