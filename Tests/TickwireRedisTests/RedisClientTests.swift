import Dispatch
import Synchronization
import Testing
import TickwireRedis
import TickwireRedisTestSupport

@Suite("Redis client against a real redis-server")
struct RedisClientTests {
    @Test("SET and GET carry binary values; a server error reply is a typed error with its text")
    func commands() throws {
        let server = try RedisServerProcess()
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        let payload: [UInt8] = [0, 13, 10, 255, 1]
        #expect(try client.call(RedisCommand(["SET", "k"], bytes: [payload]))?.get() == .simpleString("OK"))
        #expect(try client.call(RedisCommand("GET", "k"))?.get() == .bulkString(payload))
        #expect(try client.call(RedisCommand("GET", "missing"))?.get() == .null)
        let failure = client.call(RedisCommand("INCR", "k"))
        guard case .failure(let error) = failure else {
            Issue.record("INCR of a binary value should fail, got \(String(describing: failure))")
            return
        }
        #expect(error.serverMessage?.hasPrefix("ERR") == true, "the server's text should come through: \(error)")
        #expect(client.isConnected, "an error reply leaves the connection up")
    }

    @Test("a host name is resolved off the loop thread, and the client connects to an address it names")
    func hostName() throws {
        let server = try RedisServerProcess()
        let client = try RedisClient.connected(to: RedisURL(host: "localhost", port: server.port))
        defer { client.stop() }
        #expect(try client.call(RedisCommand("PING"))?.get() == .simpleString("PONG"))
    }

    @Test("1000 pipelined commands are answered in order, each completion on the loop thread")
    func pipelining() throws {
        let server = try RedisServerProcess()
        let client = try RedisClient.connected(to: server.url)
        defer { client.stop() }
        let replies = Mutex<[Int64]>([])
        let offLoop = Mutex(0)
        let done = DispatchSemaphore(value: 0)
        let loop = client.loop
        for _ in 0..<1000 {
            client.send(RedisCommand("INCR", "counter")) { result in
                if !loop.isInLoopThread { offLoop.withLock { $0 += 1 } }
                let count = replies.withLock { replies in
                    replies.append((try? result.get().integer) ?? -1)
                    return replies.count
                }
                if count == 1000 { done.signal() }
            }
        }
        #expect(done.wait(timeout: .now() + 10) == .success, "1000 replies within 10 s")
        #expect(replies.withLock { $0 } == Array(1...1000), "INCR answers 1, 2, … 1000 in the order sent")
        #expect(offLoop.withLock { $0 } == 0)
    }

    @Test("a command with no connection fails at once; the client connects when Redis comes up, and again after a restart")
    func reconnects() throws {
        let server = RedisServerProcess(portOnly: ())
        let client = try RedisClient(url: server.url)
        defer { client.stop() }
        client.start()
        let early = client.call(RedisCommand("PING"), within: 2)
        guard case .failure(let error) = early else {
            Issue.record("PING without a server should fail at once, got \(String(describing: early))")
            return
        }
        #expect(error.isConnectionFailure, "\(error)")
        try server.start()
        #expect(eventually(within: 5) { client.isConnected }, "connects within the backoff once Redis listens")
        #expect(try client.call(RedisCommand("SET", "a", "1"))?.get() == .simpleString("OK"))
        #expect(client.reconnectCount == 0)

        server.stop()
        #expect(eventually(within: 5) { !client.isConnected }, "notices the server is gone")
        try server.start()
        #expect(eventually(within: 5) { client.isConnected }, "reconnects to the restarted server on the same port")
        #expect(client.reconnectCount == 1)
        #expect(try client.call(RedisCommand("PING"))?.get() == .simpleString("PONG"))
    }

    @Test("a server that stops answering fails the command with a timeout, and the client reconnects when it answers again")
    func commandTimeout() throws {
        let server = try RedisServerProcess()
        let configuration = RedisClientConfiguration(connectTimeout: .milliseconds(300), commandTimeout: .milliseconds(200))
        let client = try RedisClient.connected(to: server.url, configuration: configuration)
        defer {
            server.pause(false)
            client.stop()
        }
        server.pause(true)
        let result = client.call(RedisCommand("PING"), within: 5)
        guard case .failure(let error) = result else {
            Issue.record("PING to a frozen server should time out, got \(String(describing: result))")
            return
        }
        #expect(error.isTimeout, "\(error)")
        server.pause(false)
        #expect(eventually(within: 5) { client.isConnected && client.reconnectCount >= 1 })
        #expect(try client.call(RedisCommand("PING"))?.get() == .simpleString("PONG"))
    }

    @Test("maximumPendingCommands: the limit's commands are sent, one more fails at once")
    func pendingLimit() throws {
        let server = try RedisServerProcess()
        let configuration = RedisClientConfiguration(maximumPendingCommands: 4)
        let client = try RedisClient.connected(to: server.url, configuration: configuration)
        defer { client.stop() }
        let results = Mutex<[Result<RedisReply, RedisError>]>([])
        let done = DispatchSemaphore(value: 0)
        // Five sends in one loop turn, so that none is answered before the fifth.
        client.loop.execute {
            for _ in 0..<5 {
                client.send(RedisCommand("PING")) { result in
                    if results.withLock({
                        $0.append(result); return $0.count
                    }) == 5 {
                        done.signal()
                    }
                }
            }
        }
        #expect(done.wait(timeout: .now() + 5) == .success)
        let all = results.withLock { $0 }
        let refused = all.compactMap { result -> RedisError? in
            if case .failure(let error) = result { return error }
            return nil
        }
        #expect(refused.count == 1 && refused.first?.exceededLimit == "maximumPendingCommands", "\(all)")
        #expect(all.filter { (try? $0.get()) == .simpleString("PONG") }.count == 4)
    }

    @Test("SELECT from the URL's database: keys of database 2 are not in database 0")
    func database() throws {
        let server = try RedisServerProcess()
        let two = try RedisClient.connected(to: RedisURL(host: "127.0.0.1", port: server.port, database: 2))
        let zero = try RedisClient.connected(to: server.url)
        defer {
            two.stop()
            zero.stop()
        }
        _ = two.call(RedisCommand("SET", "only-in-2", "x"))
        #expect(try two.call(RedisCommand("EXISTS", "only-in-2"))?.get() == .integer(1))
        #expect(try zero.call(RedisCommand("EXISTS", "only-in-2"))?.get() == .integer(0))
    }

    @Test("connectTimeout: a server that accepts but never answers SELECT does not count as connected; it does once it answers")
    func connectTimeout() throws {
        let server = try RedisServerProcess()
        let checker = try RedisClient.connected(to: server.url)
        defer { checker.stop() }
        let before = try connectionsReceived(checker)
        server.pause(true)
        defer { server.pause(false) }
        let configuration = RedisClientConfiguration(connectTimeout: .milliseconds(200), commandTimeout: .seconds(30))
        let client = try RedisClient(url: RedisURL(host: "127.0.0.1", port: server.port, database: 1), configuration: configuration)
        defer { client.stop() }
        client.start()
        #expect(!eventually(within: 0.6) { client.isConnected }, "the kernel accepts, but SELECT gets no answer")
        server.pause(false)
        #expect(eventually(within: 5) { client.isConnected }, "a later attempt connects once the server answers")
        #expect(client.reconnectCount == 0, "failed attempts are not connections")
        let attempts = try connectionsReceived(checker) - before
        #expect(attempts >= 2, "the first attempt was given up at its timeout and another made: \(attempts) connections")
    }

    /// The server's `total_connections_received` (`INFO stats`).
    private func connectionsReceived(_ client: RedisClient) throws -> Int {
        let stats = try #require(try client.call(RedisCommand("INFO", "stats"))?.get().string)
        let line = stats.split(whereSeparator: \.isNewline).first { $0.hasPrefix("total_connections_received:") }
        return try #require(line.flatMap { Int($0.dropFirst("total_connections_received:".count)) })
    }
}
