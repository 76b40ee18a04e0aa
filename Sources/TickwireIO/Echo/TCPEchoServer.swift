import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP echo server on an ``EventLoop``: every byte received is sent back.
///
/// The baseline for WebSocket benchmarks (`tickwire bench ws`, `tickwire echo --tcp`): the same
/// loop and sockets without framing, built on TickwireIO's `package` API. A peer that sends
/// without reading stops being read once ``maximumBufferedBytes`` wait to go out, so it cannot
/// grow the server's memory.
package final class TCPEchoServer: Sendable {
    /// The most bytes buffered for one peer before the server stops reading from it.
    package let maximumBufferedBytes: Int
    private let loop: EventLoop
    private let ownsLoop: Bool
    private let state = Mutex<SocketAddress?>(nil)
    // Thread safety: `listener` is created, used and closed on the loop thread only, which is
    // what makes its box (`LoopBound`, `@unchecked Sendable`) safe to hold here.
    private let listener = LoopBound<Listener?>(nil)

    /// Creates a server; call ``start(host:port:)``.
    ///
    /// - Parameters:
    ///   - loop: The loop to run on, or `nil` to start a loop of its own (stopped by ``stop()``).
    ///   - maximumBufferedBytes: Per-peer outbound bound, 1 MiB by default.
    /// - Throws: ``SystemError`` when a loop of its own cannot be created.
    package init(loop: EventLoop? = nil, maximumBufferedBytes: Int = 1 << 20) throws(SystemError) {
        (self.loop, ownsLoop) = try EventLoop.sharedOrOwn(loop)
        self.maximumBufferedBytes = maximumBufferedBytes
    }

    deinit {
        if ownsLoop { loop.stop() }
    }

    /// Listens on `host:port` (port 0: any free port) and returns the address bound.
    ///
    /// - Parameters:
    ///   - host: A numeric IPv4 or IPv6 address, `127.0.0.1` by default.
    ///   - port: The port, or 0 to let the kernel choose.
    /// - Returns: The bound address; its `port` is the real one.
    /// - Throws: ``SystemError`` when the address is not numeric or `bind`/`listen` fail.
    @discardableResult
    package func start(host: String = "127.0.0.1", port: Int = 0) throws(SystemError) -> SocketAddress {
        guard let address = SocketAddress(numericHost: host, port: port) else {
            throw SystemError(call: "inet_pton", code: EINVAL)
        }
        let limit = maximumBufferedBytes
        let result = loop.runAndWait { [listener, loop] () -> Result<SocketAddress, SystemError> in
            do throws(SystemError) {
                let newListener = try Listener(address: address, loop: loop) { socket, peer in
                    guard let channel = try? TCPChannel(socket: socket, peer: peer, loop: loop) else { return }
                    channel.onRead = { [unowned channel] bytes in
                        channel.write(bytes)
                        if channel.bufferedByteCount >= limit { channel.isReadPaused = true }
                    }
                    channel.onWritable = { [unowned channel] in channel.isReadPaused = false }
                }
                listener.value = newListener
                return .success(newListener.address)
            } catch {
                return .failure(error)
            }
        }
        guard let result else { throw SystemError(call: "EventLoop.execute", code: ESHUTDOWN) }
        let bound = try result.get()
        state.withLock { $0 = bound }
        return bound
    }

    /// The bound address, once started.
    package var address: SocketAddress? { state.withLock { $0 } }

    /// Stops listening; with a loop of its own, stops the loop too (closing every connection).
    package func stop() {
        loop.runAndWait { [listener] in
            listener.value?.close()
            listener.value = nil
        }
        if ownsLoop { loop.stop() }
    }
}
