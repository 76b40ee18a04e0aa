import Synchronization
@_spi(LoopThread) import TickwireIO

/// A Redis client of our own on the ``EventLoop``: RESP2 over one non-blocking TCP connection,
/// commands pipelined (sent at once, answered in order), connect and command timeouts, and
/// reconnection with backoff after any failure.
///
/// Every method is safe from any thread. Completions run on the loop thread, in the order the
/// commands were sent; keep them short, and never wait there for another command's answer. A
/// command sent while there is no connection fails at once (``RedisError/isConnectionFailure``):
/// the client does not queue work for a later connection, so its owner decides what to redo
/// when the `onConnectionChange` handler given to ``init(url:configuration:loop:onConnectionChange:)``
/// says the connection is back.
///
/// ```swift
/// let client = try RedisClient(url: RedisURL(parsing: "redis://127.0.0.1:6379"))
/// client.start()
/// client.send(RedisCommand("PING")) { result in print(result) }
/// ```
public final class RedisClient: Sendable {
    /// The server.
    public let url: RedisURL
    /// How the client connects, waits and reconnects.
    public let configuration: RedisClientConfiguration
    /// The loop the connection runs on.
    public let loop: EventLoop
    private let isLoopOwned: Bool
    private let core: LoopBound<RedisConnectionCore?>
    private let status = Mutex(Status())
    private let connectionHandler: @Sendable (Bool) -> Void

    private struct Status {
        var isConnected = false
        var connections = 0
        var isStarted = false
    }

    /// Creates a client; call ``start()`` to connect.
    ///
    /// - Parameters:
    ///   - url: The server.
    ///   - configuration: Timeouts, backoff and limits.
    ///   - loop: A loop to share (left running by ``stop()``), or `nil` for one of the client's own.
    ///   - onConnectionChange: Told on the loop thread when a connection opens (`true`: commands
    ///     may be sent) and when it ends (`false`).
    /// - Throws: ``SystemError`` when a loop of its own cannot be started.
    public init(
        url: RedisURL, configuration: RedisClientConfiguration = RedisClientConfiguration(), loop: EventLoop? = nil,
        onConnectionChange: @escaping @Sendable (Bool) -> Void = { _ in }
    ) throws(SystemError) {
        self.url = url
        self.configuration = configuration
        (self.loop, isLoopOwned) = try EventLoop.sharedOrOwn(loop)
        core = LoopBound(nil)
        connectionHandler = onConnectionChange
    }

    /// Connects, and keeps reconnecting after failures until ``stop()``. Calling it again does nothing.
    public func start() {
        let isFirst = status.withLock { status in
            defer { status.isStarted = true }
            return !status.isStarted
        }
        guard isFirst else { return }
        onLoop { [self] in
            let core = RedisConnectionCore(url: url, configuration: configuration, loop: loop) { [weak self] isConnected in
                self?.connectionChanged(isConnected)
            }
            self.core.value = core
            core.connect()
        }
    }

    /// Closes the connection for good, after sending the commands already given (their replies
    /// are not awaited: commands waiting fail with ``RedisError`` "stopped"). Stops the client's
    /// own loop, and waits for that; a shared loop keeps running.
    public func stop() {
        onLoop { [core] in
            core.value?.stop()
            core.value = nil
        }
        if isLoopOwned { loop.stop() }
    }

    /// Sends `command`; `completion` receives its reply on the loop thread.
    ///
    /// - Parameters:
    ///   - command: The command.
    ///   - completion: Told the reply, or why there is none: an error reply (its
    ///     ``RedisError/serverMessage``), no connection, a timeout, a closed connection, or
    ///     ``RedisClientConfiguration/maximumPendingCommands`` reached.
    public func send(_ command: RedisCommand, completion: @escaping @Sendable (Result<RedisReply, RedisError>) -> Void) {
        onLoop { [core] in
            guard let connection = core.value else { return completion(.failure(.stopped)) }
            connection.send(command, completion: completion)
        }
    }

    /// Whether a connection is open and ready for commands now.
    public var isConnected: Bool { status.withLock { $0.isConnected } }

    /// How many times the client has connected again after its first connection.
    public var reconnectCount: Int { status.withLock { max($0.connections - 1, 0) } }

    private func connectionChanged(_ isConnected: Bool) {
        status.withLock { status in
            status.isConnected = isConnected
            if isConnected { status.connections += 1 }
        }
        connectionHandler(isConnected)
    }

    /// Runs `work` on the loop thread: at once when already there, else on its next turn.
    private func onLoop(_ work: @escaping @Sendable () -> Void) {
        if loop.isInLoopThread { work() } else { loop.execute(work) }
    }
}
