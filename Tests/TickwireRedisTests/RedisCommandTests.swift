import Testing
import TickwireRedis

@Suite("RESP2 command encoding and redis:// URLs")
struct RedisCommandTests {
    @Test("a command is an array of bulk strings, byte for byte")
    func encoding() {
        #expect(RedisCommand("SET", "key", "value").encoded == Array("*3\r\n$3\r\nSET\r\n$3\r\nkey\r\n$5\r\nvalue\r\n".utf8))
        #expect(RedisCommand("PING").encoded == Array("*1\r\n$4\r\nPING\r\n".utf8))
        #expect(RedisCommand("ECHO", "").encoded == Array("*2\r\n$4\r\nECHO\r\n$0\r\n\r\n".utf8))
    }

    @Test("binary arguments go as they are, and parse back as the same bulk strings")
    func binaryRoundTrip() throws {
        let payload: [UInt8] = [0, 13, 10, 0xFF, 0x2A]
        let command = RedisCommand(["SET", "k"], bytes: [payload])
        var parser = RedisReplyParser()
        parser.append(command.encoded)
        #expect(try parser.next() == .array([.bulkString(Array("SET".utf8)), .bulkString(Array("k".utf8)), .bulkString(payload)]))
    }

    @Test(
        "redis:// URLs parse with their defaults",
        arguments: [
            ("redis://127.0.0.1:6380", RedisURL(host: "127.0.0.1", port: 6380)),
            ("redis://cache.internal", RedisURL(host: "cache.internal", port: 6379)),
            ("redis://[::1]:7000/3", RedisURL(host: "::1", port: 7000, database: 3)),
            ("REDIS://h:1/", RedisURL(host: "h", port: 1)),
            ("redis://h/2", RedisURL(host: "h", port: 6379, database: 2)),
        ])
    func validURLs(_ text: String, _ expected: RedisURL) throws {
        #expect(try RedisURL(parsing: text) == expected)
    }

    @Test(
        "bad redis:// URLs are typed errors that name the fault",
        arguments: [
            "http://h:1", "redis://", "redis://h:0", "redis://h:65536", "redis://h:x", "redis://h/x", "redis://user:pw@h",
            "redis://[::1", "redis://[::1]x",
        ])
    func invalidURLs(_ text: String) {
        let error = #expect(throws: RedisError.self) { try RedisURL(parsing: text) }
        #expect(error?.isInvalidURL == true)
        #expect(error?.description.contains(text) == true)
    }

    @Test("a URL prints back as it parses")
    func urlDescription() throws {
        #expect(try RedisURL(parsing: "redis://[::1]:7000/3").description == "redis://[::1]:7000/3")
        #expect(RedisURL(host: "h").description == "redis://h:6379")
    }
}
