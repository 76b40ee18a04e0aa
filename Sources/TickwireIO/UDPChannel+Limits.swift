extension UDPChannel {
    /// Every limit of a ``UDPChannel``, in one place: the size of a datagram, the reads of one
    /// loop turn and the send queue.
    ///
    /// UDP is lossy by contract: past a limit a datagram is dropped and counted in
    /// ``UDPChannel/Statistics``, never buffered without bound and never delivered cut short.
    package struct Limits: Hashable, Sendable {
        /// The largest datagram payload received or sent, in bytes.
        ///
        /// A larger datagram that arrives is truncated by the kernel (`MSG_TRUNC`); the channel
        /// sees that, drops it and counts it (``UDPChannel/Statistics/receivedTooLarge``) rather
        /// than hand a cut datagram to its handler. A larger send is refused and counted
        /// (``UDPChannel/Statistics/sendsTooLarge``). 1500 (``standard``): an Ethernet frame's
        /// payload, above netcode.io's 1300-byte datagrams; beyond it IP fragments.
        package var maximumDatagramBytes: Int
        /// The most datagrams read in one loop turn (one readiness event); what is left waits
        /// for the next turn, after the loop's other sockets are served. 128 (``standard``).
        package var datagramsPerTurn: Int
        /// The most datagrams waiting to be sent (handed over from other threads, or refused by
        /// the kernel with `EAGAIN`); one more is dropped and counted
        /// (``UDPChannel/Statistics/sendQueueFull``). 1024 (``standard``).
        package var maximumQueuedDatagrams: Int
        /// The most payload bytes waiting to be sent, across the queued datagrams; a datagram
        /// that would pass it is dropped and counted. 1 MiB (``standard``).
        package var maximumQueuedBytes: Int

        /// Creates limits.
        ///
        /// - Parameters:
        ///   - maximumDatagramBytes: The largest datagram payload, 1...65507 (clamped).
        ///   - datagramsPerTurn: The most datagrams read per loop turn, at least 1 (clamped).
        ///   - maximumQueuedDatagrams: The most datagrams queued for sending, at least 0 (clamped).
        ///   - maximumQueuedBytes: The most bytes queued for sending, at least 0 (clamped).
        package init(maximumDatagramBytes: Int, datagramsPerTurn: Int, maximumQueuedDatagrams: Int, maximumQueuedBytes: Int) {
            self.maximumDatagramBytes = min(max(maximumDatagramBytes, 1), UDPChannel.largestDatagramBytes)
            self.datagramsPerTurn = max(datagramsPerTurn, 1)
            self.maximumQueuedDatagrams = max(maximumQueuedDatagrams, 0)
            self.maximumQueuedBytes = max(maximumQueuedBytes, 0)
        }

        /// 1500-byte datagrams, 128 read per turn, 1024 datagrams or 1 MiB queued for sending.
        package static let standard = Limits(
            maximumDatagramBytes: 1500, datagramsPerTurn: 128, maximumQueuedDatagrams: 1024, maximumQueuedBytes: 1 << 20)
    }

    /// The largest UDP payload over IPv4 (65 535 less the 8-byte UDP and 20-byte IP headers): the
    /// ceiling of ``Limits/maximumDatagramBytes``.
    package static let largestDatagramBytes = 65_507

    /// Datagrams per `recvmmsg(2)` or `sendmmsg(2)` call on Linux (and the receive buffer's slots):
    /// enough that a burst costs a few calls, small enough that the buffers stay in the cache.
    package static let batchCount = 32
}
