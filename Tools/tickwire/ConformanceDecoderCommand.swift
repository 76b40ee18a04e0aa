import CommandLineSupport
import Foundation
import Tickwire

/// `tickwire conformance-decoder`: Tickwire's Swift decoders behind the conformance contract of
/// `Protocol/CONFORMANCE.md`, for `Tools/conformance -- swift run tickwire conformance-decoder`.
///
/// Writes one line naming the decoder and its families (snapshots in the three codings through
/// ``SnapshotCodec``, frames through ``FrameDecompressor``, WebSocket frames through
/// ``WebSocketProtocolMachine``, the UDP transport's close and handover messages through
/// `UDPCloseMessage` and `UDPHandoverMessage`, the UDP packet layer's packets through
/// `Packet.decode`, netcode.io's tokens and packets through TickwireNetcode, Tickwire's connect
/// tokens through ``ConnectTokenUserData`` and ``NetcodeConnectTokenVerifier``), then answers each
/// JSON request line on standard input with one JSON line on standard output; bit streams through
/// TickwireCodec's `BitReader`, which is `package`-visible for this.
enum ConformanceDecoderCommand {
    /// What `tickwire conformance-decoder` accepts; its usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire conformance-decoder", synopsis: [""],
        summary: """
            answers the conformance checker's requests (Protocol/CONFORMANCE.md) on standard input and output \
            with Tickwire's Swift decoders; run it through Tools/conformance
            """)

    /// A request that is not one of the contract's: the checker's fault, so the command stops.
    struct RequestError: Error, CustomStringConvertible {
        /// What is wrong with the request.
        let description: String
    }

    static func run(_ arguments: CommandArguments) throws {
        try arguments.rejectUnknown()
        guard arguments.positionals.isEmpty else { throw CommandArguments.UsageError(description: "no arguments") }
        try write(["decoder": "swift", "families": ["bits", "snapshot", "frame", "websocket", "packet", "udp", "netcode", "tokens"]])
        while let line = readLine() {
            guard !line.allSatisfy(\.isWhitespace) else { continue }
            guard let request = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any] else {
                throw RequestError(description: "a request that is not a JSON object: \(line.prefix(200))")
            }
            var answer = try self.answer(request)
            answer["id"] = request["id"]
            try write(answer)
        }
    }

    static func write(_ object: [String: Any]) throws {
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes])
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    static func answer(_ request: [String: Any]) throws -> [String: Any] {
        switch request["family"] as? String {
        case "bits":
            do { return try readBits(request) } catch let error as CodecError { return ["error": error.kind.description] }
        case "snapshot":
            do { return try decodeSnapshot(request) } catch let error as CodecError { return ["error": error.kind.description] }
        case "frame":
            return try decodeFrames(request)
        case "websocket":
            return try receiveWebSocket(request)
        case "packet":
            return try decodePacket(request)
        case "udp":
            return try decodeUDPMessage(request)
        case "netcode":
            return try decodeNetcode(request)
        case "tokens":
            return try decodeTokens(request)
        case let family:
            return ["unsupported": family ?? "none"]
        }
    }

    /// Reads a bit stream (`PROTOCOL.md` §2.2) in the request's read kinds: each value as a decimal string.
    static func readBits(_ request: [String: Any]) throws -> [String: Any] {
        guard let reads = request["reads"] as? [String] else { throw RequestError(description: "a bits request needs its reads") }
        var reader = BitReader(try bytes(request["bytes"]))
        var values: [String] = []
        for kind in reads {
            switch kind {
            case "bool": values.append(try reader.readBool() ? "1" : "0")
            case "varint": values.append(String(try reader.readVarint()))
            case "gamma": values.append(String(try reader.readGamma()))
            case _ where kind.hasPrefix("signed"):
                guard let width = Int(kind.dropFirst("signed".count)) else { throw RequestError(description: "unknown read kind \(kind)") }
                values.append(String(try reader.readSigned(bits: width)))
            case _ where kind.hasPrefix("u"):
                guard let width = Int(kind.dropFirst()) else { throw RequestError(description: "unknown read kind \(kind)") }
                values.append(String(try reader.read(bits: width)))
            default: throw RequestError(description: "unknown read kind \(kind)")
            }
        }
        return ["values": values]
    }

    /// Decodes the steps in order, each against the snapshot (and the motion kept with it) before it.
    static func decodeSnapshot(_ request: [String: Any]) throws -> [String: Any] {
        let name = request["schema"] as? String ?? ""
        guard let schema = try VectorSchemas.named(name) else { throw RequestError(description: "unknown schema \(name)") }
        guard let steps = request["steps"] as? [[String: Any]], !steps.isEmpty else {
            throw RequestError(description: "a snapshot request needs its steps")
        }
        let limits = try self.limits(request)
        var codecLimits = CodecLimits()
        if let value = limits["maxEntities"] { codecLimits.maxEntities = value }
        if let value = limits["maxEncodedBytes"] { codecLimits.maxEncodedBytes = value }
        let codec = SnapshotCodec(schema: schema, limits: codecLimits)
        var baseline: Snapshot?
        var baselineMotion = SnapshotMotion.zero
        for step in steps {
            let coding: DeltaCoding
            switch step["coding"] as? String {
            case "bitPacked": coding = .bitPacked
            case "entropy": coding = .entropy
            case "predictedEntropy": coding = .predictedEntropy
            case let other: throw RequestError(description: "unknown coding \(other ?? "none")")
            }
            var snapshot = Snapshot(schema: schema, tick: 0)
            var motion = SnapshotMotion.zero
            try codec.decode(
                try bytes(step["bytes"]), baseline: baseline, coding: coding, baselineMotion: baselineMotion, into: &snapshot,
                motion: &motion)
            baseline = snapshot
            baselineMotion = motion
        }
        guard let snapshot = baseline else { throw RequestError(description: "a snapshot request needs its steps") }
        let entities = snapshot.indices.map { index in
            let fields = schema.entityTypes[snapshot.typeIndex(at: index)].fields.indices
            // A text field's value is `t:` and its UTF-8 bytes in hex, as on a vector's `# entity:` line.
            let values = fields.map { field in
                schema.entityTypes[snapshot.typeIndex(at: index)].fields[field].kind.maxTextBytes == nil
                    ? String(snapshot.value(at: index, field: field))
                    : "t:" + snapshot.textBytes(at: index, field: field).map { String(format: "%02x", $0) }.joined()
            }
            return ([String(snapshot.id(at: index)), String(snapshot.typeIndex(at: index))] + values).joined(separator: " ")
        }
        return ["tick": Int(snapshot.tick), "entities": entities]
    }

    /// Decodes the frames in order on one connection, going on after a refused one: each message's
    /// body re-encoded, uncompressed, or the frame's error.
    static func decodeFrames(_ request: [String: Any]) throws -> [String: Any] {
        let mode: CompressionMode
        switch request["mode"] as? String {
        case "none": mode = .none
        case "perFrame": mode = .perFrame
        case "streaming": mode = .streaming
        case let other: throw RequestError(description: "unknown compression mode \(other ?? "none")")
        }
        guard let frames = request["frames"] as? [Any] else { throw RequestError(description: "a frame request needs its frames") }
        var frameLimits = FrameLimits()
        for (name, value) in try limits(request) {
            switch name {
            case "maximumFrameBytes": frameLimits.maximumFrameBytes = value
            case "maximumBodyBytes": frameLimits.maximumBodyBytes = value
            default: throw RequestError(description: "unknown frame limit \(name)")
            }
        }
        let decompressor = try FrameDecompressor(mode: mode, limits: frameLimits)
        var messages: [[String: Any]] = []
        for frame in frames {
            let data = try bytes(frame)
            do {
                let decoded = try decompressor.decompress(data)
                let message = try Message(type: decoded.type, body: decoded.body, limits: frameLimits)
                messages.append(["type": Int(decoded.type.rawValue), "body": hex(try message.encodeBody(limits: frameLimits))])
            } catch {
                messages.append(["error": ErrorSignature.of(error)])
            }
        }
        return ["messages": messages]
    }

    /// The request's `"limits"`: limit names and values (none when it has no such key).
    static func limits(_ request: [String: Any]) throws -> [String: Int] {
        guard let limits = request["limits"] else { return [:] }
        guard let values = limits as? [String: Int] else { throw RequestError(description: "limits must map names to integers") }
        return values
    }

    static func bytes(_ value: Any?) throws -> [UInt8] {
        guard let digits = value as? String, digits.count.isMultiple(of: 2) else {
            throw RequestError(description: "bytes must be a string of hex digit pairs")
        }
        var result: [UInt8] = []
        result.reserveCapacity(digits.count / 2)
        var index = digits.startIndex
        while index < digits.endIndex {
            let next = digits.index(index, offsetBy: 2)
            guard let byte = UInt8(digits[index..<next], radix: 16) else {
                throw RequestError(description: "not a hex digit pair: \(digits[index..<next])")
            }
            result.append(byte)
            index = next
        }
        return result
    }

    static func hex(_ bytes: [UInt8]) -> String {
        bytes.map { String($0 >> 4, radix: 16) + String($0 & 0x0F, radix: 16) }.joined()
    }
}

/// An error written as `Protocol/CONFORMANCE.md` and the vectors' `# error:` lines write it:
/// `name`, or `name(label: value, …)` with strings quoted and a nested error in the same form.
enum ErrorSignature {
    /// The signature of a Tickwire error that wraps an internal enum of cases (``FrameError``,
    /// ``ZlibError``, `PacketError`, `NetcodeError`): the case as Swift prints an enum case, which
    /// is the vectors' grammar.
    static func of(_ error: any Error) -> String {
        guard let kind = Mirror(reflecting: error).children.first?.value else { return String(describing: error) }
        // A case whose one value is itself an error (`inflation(ZlibError)`) names that error's case.
        if let payload = Mirror(reflecting: kind).children.first, let label = payload.label, let inner = payload.value as? any Error {
            return "\(label)(\(of(inner)))"
        }
        return String(describing: kind)
    }
}
