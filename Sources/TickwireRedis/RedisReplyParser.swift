/// An incremental RESP2 reply parser, with no I/O: bytes go in as they arrive
/// (``append(_:)-(UnsafeRawBufferPointer)``), whole replies come out (``next()``).
///
/// Every length is checked against ``limits`` as soon as its header is read, before the bytes
/// it announces are waited for; an incomplete reply is parsed again from its start when more
/// bytes arrive (replies are short, and the limits bound the work). After a thrown error the
/// stream cannot be trusted: drop the connection.
///
/// Not thread-safe: a value owned by one connection.
public struct RedisReplyParser {
    /// The bounds this parser enforces.
    public let limits: RedisReplyLimits
    private var buffer: [UInt8] = []
    private var start = 0

    /// Creates a parser.
    ///
    /// - Parameter limits: The bounds to enforce.
    public init(limits: RedisReplyLimits = RedisReplyLimits()) {
        self.limits = limits
    }

    /// The bytes received and not yet parsed into a reply.
    public var bufferedByteCount: Int { buffer.count - start }

    /// Adds received bytes.
    ///
    /// - Parameter bytes: The bytes, in the order they arrived.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if start > 0 && start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 1 << 20)
            start = 0
        } else if start >= 64 << 10 && start * 2 >= buffer.count {
            buffer.removeFirst(start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Adds received bytes.
    ///
    /// - Parameter bytes: The bytes, in the order they arrived.
    public mutating func append(_ bytes: [UInt8]) {
        bytes.withUnsafeBytes { append($0) }
    }

    /// Forgets every buffered byte (a new connection starts a new stream).
    public mutating func reset() {
        buffer = []
        start = 0
    }

    /// The next whole reply, or `nil` when the bytes buffered do not hold one yet.
    ///
    /// - Returns: The reply, consumed from the buffer.
    /// - Throws: ``RedisError`` when the bytes are not RESP2 (``RedisError/isProtocolViolation``)
    ///   or go past a limit (``RedisError/exceededLimit``).
    public mutating func next() throws(RedisError) -> RedisReply? {
        var index = start
        guard let reply = try parse(at: &index, depth: 0) else {
            if bufferedByteCount > limits.maximumReplyBytes {
                throw .limitExceeded("maximumReplyBytes", limit: limits.maximumReplyBytes, value: bufferedByteCount)
            }
            return nil
        }
        start = index
        return reply
    }

    /// Parses the reply at `index`, advancing it past the reply; `nil` when incomplete.
    private func parse(at index: inout Int, depth: Int) throws(RedisError) -> RedisReply? {
        guard index < buffer.count else { return nil }
        let type = buffer[index]
        guard let (line, next) = try line(from: index + 1) else { return nil }
        switch type {
        case UInt8(ascii: "+"):
            index = next
            return .simpleString(String(decoding: buffer[line], as: UTF8.self))
        case UInt8(ascii: "-"):
            index = next
            return .error(String(decoding: buffer[line], as: UTF8.self))
        case UInt8(ascii: ":"):
            index = next
            return .integer(try integer(in: line))
        case UInt8(ascii: "$"):
            let length = try integer(in: line)
            if length == -1 {
                index = next
                return .null
            }
            guard length >= 0 else { throw .protocolViolation("bulk string length \(length)") }
            guard length <= limits.maximumBulkBytes else {
                throw .limitExceeded("maximumBulkBytes", limit: limits.maximumBulkBytes, value: Int(clamping: length))
            }
            let end = next + Int(length)
            guard end + 2 <= buffer.count else { return nil }
            guard buffer[end] == 13, buffer[end + 1] == 10 else {
                throw .protocolViolation("bulk string of \(length) bytes not followed by CRLF")
            }
            index = end + 2
            return .bulkString(Array(buffer[next..<end]))
        case UInt8(ascii: "*"):
            let count = try integer(in: line)
            if count == -1 {
                index = next
                return .null
            }
            guard count >= 0 else { throw .protocolViolation("array length \(count)") }
            guard count <= limits.maximumArrayElements else {
                throw .limitExceeded("maximumArrayElements", limit: limits.maximumArrayElements, value: Int(clamping: count))
            }
            guard depth + 1 <= limits.maximumNestingDepth else {
                throw .limitExceeded("maximumNestingDepth", limit: limits.maximumNestingDepth, value: depth + 1)
            }
            var elements: [RedisReply] = []
            elements.reserveCapacity(min(Int(count), 1024))
            var cursor = next
            for _ in 0..<count {
                guard let element = try parse(at: &cursor, depth: depth + 1) else { return nil }
                elements.append(element)
            }
            index = cursor
            return .array(elements)
        default:
            throw .protocolViolation("unexpected reply type byte 0x\(String(type, radix: 16))")
        }
    }

    /// The line starting at `index` (without its CRLF) and the index after the CRLF; `nil` when
    /// the CRLF has not arrived.
    private func line(from index: Int) throws(RedisError) -> (Range<Int>, Int)? {
        let searchEnd = min(buffer.count, index + limits.maximumLineBytes + 1)
        var cursor = index
        while cursor < searchEnd {
            if buffer[cursor] == 13 {
                guard cursor + 1 < buffer.count else { return nil }
                guard buffer[cursor + 1] == 10 else { throw .protocolViolation("CR not followed by LF") }
                return (index..<cursor, cursor + 2)
            }
            cursor += 1
        }
        if searchEnd - index > limits.maximumLineBytes {
            throw .limitExceeded("maximumLineBytes", limit: limits.maximumLineBytes, value: searchEnd - index)
        }
        return nil
    }

    /// A decimal integer (optional `-`, then digits), as RESP2 writes lengths and integers.
    private func integer(in range: Range<Int>) throws(RedisError) -> Int64 {
        var cursor = range.lowerBound
        let isNegative = cursor < range.upperBound && buffer[cursor] == UInt8(ascii: "-")
        if isNegative { cursor += 1 }
        guard cursor < range.upperBound else { throw .protocolViolation("an empty integer") }
        var value: Int64 = 0
        while cursor < range.upperBound {
            let byte = buffer[cursor]
            guard byte >= 48, byte <= 57 else {
                throw .protocolViolation("\"\(String(decoding: buffer[range], as: UTF8.self))\" is not an integer")
            }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (added, overflow2) = shifted.subtractingReportingOverflow(Int64(byte - 48))  // negative accumulates Int64.min
            guard !overflow1, !overflow2 else { throw .protocolViolation("an integer out of the 64-bit range") }
            value = added
            cursor += 1
        }
        if isNegative { return value }
        guard value != .min else { throw .protocolViolation("an integer out of the 64-bit range") }
        return -value
    }
}
