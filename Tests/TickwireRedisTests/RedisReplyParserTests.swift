import Testing
import TickwireCodec
import TickwireFoundation
import TickwireRedis

@Suite("RESP2 reply parser")
struct RedisReplyParserTests {
    static let vectors: [(String, RedisReply)] = [
        ("+OK\r\n", .simpleString("OK")),
        ("-ERR unknown command\r\n", .error("ERR unknown command")),
        (":0\r\n", .integer(0)),
        (":-42\r\n", .integer(-42)),
        (":9223372036854775807\r\n", .integer(.max)),
        (":-9223372036854775808\r\n", .integer(.min)),
        ("$5\r\nhello\r\n", .bulkString(Array("hello".utf8))),
        ("$0\r\n\r\n", .bulkString([])),
        ("$-1\r\n", .null),
        ("*-1\r\n", .null),
        ("*0\r\n", .array([])),
        ("*3\r\n:1\r\n$2\r\nab\r\n*1\r\n+x\r\n", .array([.integer(1), .bulkString(Array("ab".utf8)), .array([.simpleString("x")])])),
        ("*2\r\n$-1\r\n-WRONGTYPE no\r\n", .array([.null, .error("WRONGTYPE no")])),
    ]

    @Test("each RESP2 type parses to its reply, whole or one byte at a time", arguments: vectors)
    func parsesVector(_ text: String, _ expected: RedisReply) throws {
        var whole = RedisReplyParser()
        whole.append(Array(text.utf8))
        #expect(try whole.next() == expected)
        #expect(whole.bufferedByteCount == 0)

        var trickle = RedisReplyParser()
        var replies: [RedisReply] = []
        for byte in text.utf8 {
            trickle.append([byte])
            if let reply = try trickle.next() { replies.append(reply) }
        }
        #expect(replies == [expected], "byte-by-byte feeding must give exactly one reply, at the last byte")
    }

    @Test("a bulk string is binary-safe: CR, LF and zero bytes inside it are data")
    func binarySafeBulk() throws {
        let payload: [UInt8] = [0, 13, 10, 255, 36, 13, 10]
        var parser = RedisReplyParser()
        parser.append(Array("$7\r\n".utf8) + payload + [13, 10])
        #expect(try parser.next() == .bulkString(payload))
    }

    @Test("pipelined replies in one read come out one by one, in order")
    func pipelined() throws {
        var parser = RedisReplyParser()
        parser.append(Array("+OK\r\n:1\r\n$1\r\nx\r\n:2".utf8))
        #expect(try parser.next() == .simpleString("OK"))
        #expect(try parser.next() == .integer(1))
        #expect(try parser.next() == .bulkString([120]))
        #expect(try parser.next() == nil, "':2' has no CRLF yet")
        parser.append(Array("\r\n".utf8))
        #expect(try parser.next() == .integer(2))
    }

    @Test(
        "bytes that are not RESP2 are a protocol violation",
        arguments: [
            "!oops\r\n", ":12a\r\n", ":\r\n", "$-2\r\n", "*-5\r\n", "$3\r\nabcXY", "+OK\rX", ":99999999999999999999\r\n",
        ])
    func violations(_ text: String) {
        var parser = RedisReplyParser()
        parser.append(Array(text.utf8))
        #expect(throws: RedisError.self) { try parser.next() }
        do {
            _ = try parser.next()
        } catch {
            #expect(error.isProtocolViolation, "\(text.debugDescription) should be a protocol violation, got \(error)")
        }
    }

    @Test("maximumBulkBytes: a bulk string of the limit parses, one byte more fails at its header")
    func bulkLimit() throws {
        let limits = RedisReplyLimits(maximumBulkBytes: 8)
        var atLimit = RedisReplyParser(limits: limits)
        atLimit.append(Array("$8\r\n12345678\r\n".utf8))
        #expect(try atLimit.next() == .bulkString(Array("12345678".utf8)))
        var past = RedisReplyParser(limits: limits)
        past.append(Array("$9\r\n".utf8))  // the header alone: nothing is waited for
        #expect(throws: RedisError.self) { try past.next() }
        // The default (16 MiB), checked on the header before any byte of the string arrives.
        var defaults = RedisReplyParser()
        defaults.append(Array("$\(16 << 20)\r\n".utf8))
        #expect(try defaults.next() == nil, "16 MiB is within the default: the parser waits for the bytes")
        var defaultsPast = RedisReplyParser()
        defaultsPast.append(Array("$\((16 << 20) + 1)\r\n".utf8))
        #expect(throws: RedisError.self) { try defaultsPast.next() }
    }

    @Test("maximumArrayElements: an array of the limit parses, one element more fails at its header")
    func arrayLimit() throws {
        let limits = RedisReplyLimits(maximumArrayElements: 3)
        var atLimit = RedisReplyParser(limits: limits)
        atLimit.append(Array("*3\r\n:1\r\n:2\r\n:3\r\n".utf8))
        #expect(try atLimit.next() == .array([.integer(1), .integer(2), .integer(3)]))
        var past = RedisReplyParser(limits: limits)
        past.append(Array("*4\r\n".utf8))
        #expect(throws: RedisError.self) { try past.next() }
        var defaultsPast = RedisReplyParser()
        defaultsPast.append(Array("*65537\r\n".utf8))
        let error = #expect(throws: RedisError.self) { try defaultsPast.next() }
        #expect(error?.exceededLimit == "maximumArrayElements")
    }

    @Test("maximumNestingDepth: arrays nested to the limit parse, one level more fails")
    func depthLimit() throws {
        func nested(_ depth: Int) -> [UInt8] { Array((String(repeating: "*1\r\n", count: depth) + ":7\r\n").utf8) }
        var atLimit = RedisReplyParser()
        atLimit.append(nested(8))
        var expected = RedisReply.integer(7)
        for _ in 0..<8 { expected = .array([expected]) }
        #expect(try atLimit.next() == expected)
        var past = RedisReplyParser()
        past.append(nested(9))
        let error = #expect(throws: RedisError.self) { try past.next() }
        #expect(error?.exceededLimit == "maximumNestingDepth")
    }

    @Test("maximumLineBytes: a line of the limit parses, one byte more fails without waiting for its CRLF")
    func lineLimit() throws {
        let limits = RedisReplyLimits(maximumLineBytes: 10)
        var atLimit = RedisReplyParser(limits: limits)
        atLimit.append(Array("+123456789\r\n".utf8))  // '+' then 9 bytes: line of 9
        #expect(try atLimit.next() == .simpleString("123456789"))
        var exactly = RedisReplyParser(limits: limits)
        exactly.append(Array("+1234567890\r\n".utf8))
        #expect(try exactly.next() == .simpleString("1234567890"))
        var past = RedisReplyParser(limits: limits)
        past.append(Array("+12345678901".utf8))  // 11 bytes, no CR
        let error = #expect(throws: RedisError.self) { try past.next() }
        #expect(error?.exceededLimit == "maximumLineBytes")
    }

    @Test("maximumReplyBytes: an incomplete reply of the limit waits, one byte more fails")
    func replyLimit() throws {
        let limits = RedisReplyLimits(maximumArrayElements: 100, maximumReplyBytes: 20)
        let head = Array("*100\r\n".utf8) + Array(repeating: Array(":1\r\n".utf8), count: 3).flatMap { $0 }  // 6 + 12 = 18
        var atLimit = RedisReplyParser(limits: limits)
        atLimit.append(head + Array(":1".utf8))  // 20 bytes
        #expect(try atLimit.next() == nil)
        var past = RedisReplyParser(limits: limits)
        past.append(head + Array(":1\r".utf8))  // 21 bytes
        let error = #expect(throws: RedisError.self) { try past.next() }
        #expect(error?.exceededLimit == "maximumReplyBytes")
    }

    @Test("seeded garbage never crashes the parser: each input ends in replies, a wait or a typed error")
    func garbage() {
        var random = SplitMix64(seed: 21)
        let alphabet = Array("+-:$*\r\n0123456789-ab".utf8)
        for _ in 0..<2000 {
            var parser = RedisReplyParser(limits: RedisReplyLimits(maximumBulkBytes: 64, maximumArrayElements: 16))
            let count = Int(random.next() % 40)
            parser.append((0..<count).map { _ in alphabet[Int(random.next() % UInt64(alphabet.count))] })
            var steps = 0
            while steps < 50, (try? parser.next()).flatMap({ $0 }) != nil { steps += 1 }
            #expect(steps < 50, "40 bytes cannot hold 50 replies")
        }
    }
}
