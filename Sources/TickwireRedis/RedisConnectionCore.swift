import TickwireFoundation
@_spi(LoopThread) import TickwireIO

/// The loop-thread half of a ``RedisClient``: the connection, the replies awaited in order, the
/// timers (connect, command, reconnect) and the backoff.
///
/// Not thread-safe: loop thread only (the client reaches it through `EventLoop.execute`).
final class RedisConnectionCore {
    /// A command sent and not yet answered.
    private struct Pending {
        var deadline: UInt64
        var completion: (Result<RedisReply, RedisError>) -> Void
    }

    private let url: RedisURL
    private let configuration: RedisClientConfiguration
    private let loop: EventLoop
    /// Told on the loop thread when the connection opens (`true`, ready for commands) or ends.
    private let connectionChanged: (Bool) -> Void
    private var channel: TCPChannel?
    private var parser: RedisReplyParser
    private var pending: [Pending] = []
    private var pendingStart = 0
    private var output: [UInt8] = []
    private var isConnected = false
    private var isConnecting = false
    private var isStopped = false
    private var attempt = 0
    private var random: SplitMix64
    private var connectTimer: TimerHandle?
    private var commandTimer: TimerHandle?
    private var reconnectTimer: TimerHandle?
    /// Counts name resolutions, so that an answer for an abandoned attempt is ignored.
    private var resolution: UInt64 = 0

    init(url: RedisURL, configuration: RedisClientConfiguration, loop: EventLoop, connectionChanged: @escaping (Bool) -> Void) {
        self.url = url
        self.configuration = configuration
        self.loop = loop
        self.connectionChanged = connectionChanged
        parser = RedisReplyParser(limits: configuration.replyLimits)
        random = SplitMix64(seed: configuration.jitterSeed)
    }

    private var pendingCount: Int { pending.count - pendingStart }

    // MARK: Commands

    /// Sends `command`, or fails it (on a later loop turn) when there is no connection.
    func send(_ command: RedisCommand, completion: @escaping @Sendable (Result<RedisReply, RedisError>) -> Void) {
        let refusal: RedisError?
        if isStopped {
            refusal = .stopped
        } else if !isConnected || channel == nil {
            refusal = .notConnected
        } else if pendingCount >= configuration.maximumPendingCommands {
            refusal = .limitExceeded("maximumPendingCommands", limit: configuration.maximumPendingCommands, value: pendingCount + 1)
        } else {
            refusal = nil
        }
        if let refusal {
            loop.execute { completion(.failure(refusal)) }
            return
        }
        write(command, completion: completion)
    }

    private func write(_ command: RedisCommand, completion: @escaping (Result<RedisReply, RedisError>) -> Void) {
        guard let channel else { return completion(.failure(.notConnected)) }
        command.encode(into: &output)
        channel.write(taking: &output)
        let (deadline, isBeyond) = MonotonicTime.now().addingReportingOverflow(configuration.commandTimeout.nanoseconds)
        pending.append(Pending(deadline: isBeyond ? .max : deadline, completion: completion))
        if commandTimer == nil { armCommandTimer() }
    }

    private func armCommandTimer() {
        guard pendingCount > 0 else {
            commandTimer = nil
            return
        }
        let now = MonotonicTime.now()
        let deadline = pending[pendingStart].deadline
        let delay = Duration.nanoseconds(Int64(deadline > now ? deadline - now : 0))
        commandTimer = loop.schedule(after: delay) { [weak self] in
            guard let self else { return }
            self.commandTimer = nil
            if self.pendingCount > 0, self.pending[self.pendingStart].deadline <= MonotonicTime.now() {
                self.drop(.timeout("a command", after: self.configuration.commandTimeout))
            } else {
                self.armCommandTimer()
            }
        }
    }

    private func received(_ bytes: UnsafeRawBufferPointer) {
        parser.append(bytes)
        while channel != nil {
            let reply: RedisReply?
            do {
                reply = try parser.next()
            } catch {
                return drop(error)
            }
            guard let reply else { return }
            guard pendingCount > 0 else { return drop(.protocolViolation("a reply to no command")) }
            let completion = pending[pendingStart].completion
            pendingStart += 1
            if pendingStart == pending.count {
                pending.removeAll(keepingCapacity: true)
                pendingStart = 0
            } else if pendingStart >= 64 && pendingStart * 2 >= pending.count {
                pending.removeFirst(pendingStart)
                pendingStart = 0
            }
            if case .error(let message) = reply {
                completion(.failure(.serverError(message)))
            } else {
                completion(.success(reply))
            }
        }
    }

    // MARK: Connecting

    /// Starts a connection attempt unless one is open or under way.
    func connect() {
        guard !isStopped, channel == nil, !isConnecting else { return }
        reconnectTimer = nil
        isConnecting = true
        attempt += 1
        let (timeout, what) = (configuration.connectTimeout, "connecting to \(url)")
        connectTimer = loop.schedule(after: timeout) { [weak self] in
            self?.connectTimer = nil
            self?.failAttempt(.timeout(what, after: timeout))
        }
        if let numeric = SocketAddress(numericHost: url.host, port: url.port) {
            return connect(to: [numeric], index: 0)
        }
        // Resolved off the loop thread (EventLoop.resolve); the answer is ignored if the attempt
        // was abandoned meanwhile.
        resolution += 1
        let ticket = resolution
        loop.resolve(host: url.host, port: url.port, for: self) { core, result in core.resolved(result, ticket: ticket) }
    }

    private func resolved(_ result: Result<[SocketAddress], SystemError>, ticket: UInt64) {
        guard ticket == resolution, isConnecting, channel == nil, !isStopped else { return }
        switch result {
        case .success(let addresses) where !addresses.isEmpty: connect(to: addresses, index: 0)
        case .success: failAttempt(.connectionRefused("\(url.host) has no address"))
        case .failure(let error): failAttempt(.connectionRefused("cannot resolve \(url.host): \(error)"))
        }
    }

    private func connect(to addresses: [SocketAddress], index: Int) {
        let address = addresses[index]
        let tryNext: (String) -> Void = { [weak self] reason in
            guard let self else { return }
            if index + 1 < addresses.count {
                self.connect(to: addresses, index: index + 1)
            } else {
                self.failAttempt(.connectionRefused(reason))
            }
        }
        do throws(SystemError) {
            let socket = try Socket(family: address.family)
            let isConnected = try socket.connect(to: address)
            let channel = try TCPChannel(socket: socket, peer: address, loop: loop, isConnecting: !isConnected)
            self.channel = channel
            channel.onClose = { [weak self] error in self?.channelClosed(error) }
            if isConnected {
                try? socket.setNoDelay()
                established(channel)
            } else {
                channel.onConnect = { [weak self] error in
                    guard let self else { return }
                    if let error {
                        self.channel = nil
                        tryNext("\(error) (\(address))")
                    } else {
                        self.established(channel)
                    }
                }
            }
        } catch {
            channel = nil
            tryNext("\(error) (\(address))")
        }
    }

    private func established(_ channel: TCPChannel) {
        channel.onRead = { [weak self] bytes in self?.received(bytes) }
        guard url.database != 0 else { return opened() }
        write(RedisCommand("SELECT", String(url.database))) { [weak self] result in
            guard let self else { return }
            if case .failure(let error) = result { self.failAttempt(error) } else { self.opened() }
        }
    }

    private func opened() {
        if let connectTimer { loop.cancel(connectTimer) }
        connectTimer = nil
        isConnecting = false
        isConnected = true
        attempt = 0
        connectionChanged(true)
    }

    private func channelClosed(_ error: SystemError?) {
        channel = nil
        let detail = error.map { "\($0)" } ?? "Redis closed the connection"
        if isConnecting { failAttempt(.connectionRefused(detail)) } else { drop(.connectionLost(detail)) }
    }

    /// A connection attempt failed: clean up, and try again after the backoff.
    private func failAttempt(_ error: RedisError) {
        guard isConnecting else { return }
        if let connectTimer { loop.cancel(connectTimer) }
        connectTimer = nil
        isConnecting = false
        resolution += 1
        closeChannel()
        failPending(error)
        scheduleReconnect()
    }

    /// The open connection failed: fail what waits, tell the owner, and reconnect after the backoff.
    private func drop(_ error: RedisError) {
        if isConnecting { return failAttempt(error) }
        closeChannel()
        failPending(error)
        if isConnected {
            isConnected = false
            connectionChanged(false)
        }
        scheduleReconnect()
    }

    /// Closes the connection: at once, or (`flushing`) after the commands written are sent.
    private func closeChannel(flushing: Bool = false) {
        if let channel {
            channel.onClose = { _ in }
            channel.onConnect = nil
            if flushing && isConnected { channel.closeAfterFlush() } else { channel.close() }
        }
        channel = nil
        parser.reset()
        output.removeAll(keepingCapacity: true)
    }

    private func failPending(_ error: RedisError) {
        if let commandTimer { loop.cancel(commandTimer) }
        commandTimer = nil
        let waiting = pending[pendingStart...]
        pending = []
        pendingStart = 0
        for item in waiting { item.completion(.failure(error)) }
    }

    private func scheduleReconnect() {
        let policy = configuration.reconnect
        guard !isStopped, policy.isEnabled, reconnectTimer == nil else { return }
        if let maximum = policy.maximumAttempts, attempt >= maximum { return }
        let unitRandom = Double(random.next() >> 11) / Double(1 << 53)
        let delay = policy.delay(forAttempt: attempt + 1, unitRandom: unitRandom)
        reconnectTimer = loop.schedule(after: delay) { [weak self] in
            self?.reconnectTimer = nil
            self?.connect()
        }
    }

    /// Closes the connection for good, once the commands written have left: pending commands
    /// fail with ``RedisError`` `stopped` (their replies are not awaited).
    func stop() {
        guard !isStopped else { return }
        isStopped = true
        for timer in [connectTimer, commandTimer, reconnectTimer].compactMap({ $0 }) { loop.cancel(timer) }
        connectTimer = nil
        reconnectTimer = nil
        isConnecting = false
        resolution += 1
        closeChannel(flushing: true)  // commands sent just before (a directory's leave) still reach Redis
        failPending(.stopped)
        if isConnected {
            isConnected = false
            connectionChanged(false)
        }
    }
}

@available(*, unavailable)
extension RedisConnectionCore: Sendable {}
