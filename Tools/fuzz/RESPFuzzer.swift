// Not part of the Swift package: built by `Tools/fuzz/run resp SECONDS` with -sanitize=fuzzer,address.

import TickwireRedis

/// libFuzzer entry for ``RedisReplyParser``. The input is 5 header bytes, then the stream Redis
/// would send:
///
/// - byte 0: low 4 bits the nesting depth limit (0…15), high 4 bits the array element limit (×4);
/// - byte 1: the bulk string limit (×4 bytes); byte 2: the line limit (bytes);
/// - byte 3: the incomplete-reply limit (64 + ×16 bytes);
/// - byte 4: how the stream is cut into chunks: 0 in one piece, else each chunk is 1 + (the
///   stream's byte at the cut ^ byte 4) % 23 bytes long, appended alternately as an array and
///   as raw bytes.
///
/// After every chunk the replies are drained. It must never crash; never consume more bytes than
/// were appended; every error is a protocol violation or a named limit; every reply respects the
/// limits, describes itself, and re-encodes (RESP2, by this file) to bytes that parse to an equal
/// reply.
@_cdecl("LLVMFuzzerTestOneInput")
public func respFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    guard input.count >= 5 else { return 0 }
    let limits = RedisReplyLimits(
        maximumBulkBytes: Int(input[1]) * 4, maximumArrayElements: Int(input[0] >> 4) * 4,
        maximumNestingDepth: Int(input[0] & 15), maximumLineBytes: Int(input[2]), maximumReplyBytes: 64 + Int(input[3]) * 16)
    let chunking = input[4]
    let stream = Array(input[5...])
    var parser = RedisReplyParser(limits: limits)
    var appended = 0
    var consumed = 0
    var cut = 0
    var chunkNumber = 0
    while cut < stream.count {
        let length = chunking == 0 ? stream.count : 1 + Int((stream[cut] ^ chunking) % 23)
        let chunk = Array(stream[cut..<min(cut + length, stream.count)])
        if chunkNumber % 2 == 0 {
            parser.append(chunk)
        } else {
            chunk.withUnsafeBytes { parser.append($0) }
        }
        cut += chunk.count
        chunkNumber += 1
        appended += chunk.count
        while true {
            let reply: RedisReply?
            do {
                reply = try parser.next()
            } catch {
                // `next()` throws only RedisError (typed throws); check which kinds.
                guard error.isProtocolViolation || error.exceededLimit != nil else {
                    fatalError("the parser threw \(error), neither a protocol violation nor a limit")
                }
                _ = error.description
                return 0
            }
            let nowConsumed = appended - parser.bufferedByteCount
            guard nowConsumed >= consumed, nowConsumed <= appended else {
                fatalError("consumed \(nowConsumed) bytes (before: \(consumed)) of \(appended) appended")
            }
            guard let reply else {
                guard nowConsumed == consumed else { fatalError("no reply, yet \(nowConsumed - consumed) bytes consumed") }
                break
            }
            guard nowConsumed > consumed else { fatalError("a reply \(reply) consumed no bytes") }
            consumed = nowConsumed
            check(reply, limits: limits, depth: 0)
        }
    }
    return 0
}

/// Checks one parsed reply against the limits and its re-encoding.
private func check(_ reply: RedisReply, limits: RedisReplyLimits, depth: Int) {
    _ = String(describing: reply)
    _ = (reply.string, reply.bytes, reply.integer, reply.elements, reply.isNull)
    if depth == 0 {
        var encoded: [UInt8] = []
        encode(reply, into: &encoded)
        // The header's deepest nesting (15), default limits otherwise: an invalid UTF-8 byte in a
        // simple string comes back as U+FFFD, 3 bytes, so the line may have grown.
        var again = RedisReplyParser(limits: RedisReplyLimits(maximumNestingDepth: 15))
        again.append(encoded)
        let reparsed: RedisReply?
        do {
            reparsed = try again.next()
        } catch {
            fatalError("\(reply) re-encodes as \(encoded), which does not parse: \(error)")
        }
        guard reparsed == reply, again.bufferedByteCount == 0 else {
            fatalError("\(reply) re-encodes as \(encoded), which parses as \(String(describing: reparsed))")
        }
    }
    switch reply {
    case .bulkString(let bytes):
        guard bytes.count <= limits.maximumBulkBytes else { fatalError("a bulk string of \(bytes.count) bytes passed \(limits)") }
    case .array(let elements):
        guard elements.count <= limits.maximumArrayElements, depth + 1 <= limits.maximumNestingDepth else {
            fatalError("an array of \(elements.count) at depth \(depth + 1) passed \(limits)")
        }
        for element in elements { check(element, limits: limits, depth: depth + 1) }
    case .simpleString, .error, .integer, .null:
        break
    }
}

/// The RESP2 bytes of a reply (`.null` as the null bulk string).
private func encode(_ reply: RedisReply, into output: inout [UInt8]) {
    func line(_ type: Character, _ text: String) {
        output.append(contentsOf: "\(type)\(text)\r\n".utf8)
    }
    switch reply {
    case .simpleString(let text): line("+", text)
    case .error(let text): line("-", text)
    case .integer(let value): line(":", String(value))
    case .null: line("$", "-1")
    case .bulkString(let bytes):
        line("$", String(bytes.count))
        output.append(contentsOf: bytes)
        output.append(contentsOf: [13, 10])
    case .array(let elements):
        line("*", String(elements.count))
        for element in elements { encode(element, into: &output) }
    }
}
