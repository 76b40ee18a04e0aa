/// A listening TCP socket registered on an ``EventLoop``: accepts every pending connection when readable.
///
/// Not thread-safe: it belongs to its loop thread.
package final class Listener: EventLoopHandler {
    private let socket: Socket
    private let loop: EventLoop
    /// The address actually bound (with the kernel's port when port 0 was asked for).
    package let address: SocketAddress
    /// Called on the loop thread for each accepted socket.
    var onAccept: (Socket, SocketAddress?) -> Void

    /// Binds, listens and registers on `loop` (call on the loop thread).
    ///
    /// - Throws: ``SystemError`` from `socket`, `bind`, `listen`, `getsockname` or `epoll_ctl`.
    package init(address: SocketAddress, backlog: Int32 = 511, loop: EventLoop, onAccept: @escaping (Socket, SocketAddress?) -> Void)
        throws(SystemError)
    {
        socket = try Socket(family: address.family)
        try socket.bind(to: address)
        try socket.listen(backlog: backlog)
        self.address = try socket.localAddress()
        self.loop = loop
        self.onAccept = onAccept
        try loop.register(socket.descriptor, interest: .read, handler: self)
    }

    func handle(_ event: PollEvent) {
        // Bounded per wake-up so one busy listener cannot starve the connections on the same loop.
        for _ in 0..<64 {
            guard socket.descriptor >= 0 else { return }
            do {
                guard let (accepted, peer) = try socket.accept() else { return }
                try? accepted.setNoDelay()
                onAccept(accepted, peer)
            } catch {
                // EMFILE/ENFILE and the like: the connection stays in the backlog. Level-triggered
                // readiness would report it again at once, so stop watching for a moment.
                pauseAccepting()
                return
            }
        }
    }

    /// How long accepting pauses after `accept` fails for lack of descriptors or memory.
    static let acceptRetryDelay: Duration = .milliseconds(100)

    private func pauseAccepting() {
        let descriptor = socket.descriptor
        guard descriptor >= 0, (try? loop.reregister(descriptor, interest: [])) != nil else { return }
        loop.schedule(after: Self.acceptRetryDelay) { [weak self] in
            guard let self, self.socket.descriptor >= 0 else { return }
            try? self.loop.reregister(self.socket.descriptor, interest: .read)
        }
    }

    /// Stops listening and closes the socket (loop thread only).
    package func close() {
        guard socket.descriptor >= 0 else { return }
        loop.deregister(socket.descriptor)
        socket.close()
    }
}

@available(*, unavailable)
extension Listener: Sendable {}
