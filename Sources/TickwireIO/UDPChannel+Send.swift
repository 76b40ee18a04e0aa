#if os(Linux) && canImport(CEpoll)
import CEpoll
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension UDPChannel {
    /// Sends one datagram to `destination`; safe from any thread, never blocks.
    ///
    /// On the loop thread with nothing queued it goes out at once (`sendto(2)`); otherwise it joins
    /// the send queue, which the loop sends in its next turn (`sendmmsg(2)` on Linux) or, after
    /// the kernel refused with `EAGAIN`, when the socket is writable. UDP is lossy by contract:
    /// a datagram the channel cannot take is dropped and counted, and the result says so; one
    /// that the kernel later refuses with an error is counted in ``Statistics/sendErrors``.
    ///
    /// - Parameters:
    ///   - bytes: The payload, at most ``Limits/maximumDatagramBytes``; copied before this returns.
    ///   - destination: Where to send it: an address of the socket's family, or an IPv4 address
    ///     in its IPv4-mapped IPv6 form for a socket bound to `::`.
    /// - Returns: `true` when the datagram was sent or queued; `false` when it was dropped because
    ///   it is too large (``Statistics/sendsTooLarge``), the queue is at a bound
    ///   (``Statistics/sendQueueFull``), the channel is closed (``Statistics/droppedAtClose``), or
    ///   the kernel refused it at once (``Statistics/sendErrors``).
    @discardableResult
    package func send(_ bytes: UnsafeRawBufferPointer, to destination: SocketAddress) -> Bool {
        guard bytes.count <= limits.maximumDatagramBytes else {
            shared.withLock { $0.statistics.sendsTooLarge += 1 }
            return false
        }
        let (name, nameLength) = Self.storage(of: destination)
        let isOnLoop = loop.isInLoopThread
        if isOnLoop && !isClosedOnLoop && shared.withLock({ !$0.isClosed && $0.queuedCount == 0 }) {
            switch sendNow(bytes, to: name, length: nameLength) {
            case .sent: return true
            case .failed: return false
            case .wouldBlock: break  // queue it and wait for writability
            }
        }
        let datagram = OutgoingDatagram(bytes: Array(bytes), destination: name, destinationLength: nameLength)
        let outcome = shared.withLock { state -> QueueOutcome in
            guard !state.isClosed else {
                state.statistics.droppedAtClose += 1
                return .dropped
            }
            guard state.queuedCount < limits.maximumQueuedDatagrams,
                state.queuedBytes + bytes.count <= limits.maximumQueuedBytes
            else {
                state.statistics.sendQueueFull += 1
                return .dropped
            }
            state.queue.append(datagram)
            state.queuedBytes += bytes.count
            guard !state.isFlushScheduled, !state.isWaitingForWritable else { return .queued }
            if isOnLoop && state.queuedCount == 1 {
                // The direct send above was refused (`EAGAIN`): wait for writability.
                state.isWaitingForWritable = true
                return .queuedAwaitingWritable
            }
            state.isFlushScheduled = true
            return .queuedAwaitingFlush
        }
        switch outcome {
        case .dropped:
            return false
        case .queued:
            return true
        case .queuedAwaitingWritable:
            setWatchesWritable(true)
            return true
        case .queuedAwaitingFlush:
            if !loop.enqueue({ self.flushScheduled() }) {
                // The loop has finished and will send nothing more: the channel is as good as
                // closed (what was queued is counted in `droppedAtClose`).
                close()
                return false
            }
            return true
        }
    }

    /// What ``send(_:to:)-(UnsafeRawBufferPointer,_)`` did with a datagram it could not send at once.
    private enum QueueOutcome {
        /// Dropped and counted.
        case dropped
        /// Queued behind others: a flush or writability is already awaited.
        case queued
        /// Queued first after the kernel refused it: now wait for writability.
        case queuedAwaitingWritable
        /// Queued first from another thread: hand the loop a flush.
        case queuedAwaitingFlush
    }

    /// Sends one datagram to `destination`; see ``send(_:to:)-(UnsafeRawBufferPointer,_)``.
    ///
    /// - Parameters:
    ///   - bytes: The payload, at most ``Limits/maximumDatagramBytes``.
    ///   - destination: Where to send it.
    /// - Returns: `true` when the datagram was sent or queued, `false` when it was dropped (and counted).
    @discardableResult
    package func send(_ bytes: [UInt8], to destination: SocketAddress) -> Bool {
        bytes.withUnsafeBytes { send($0, to: destination) }
    }

    /// The queue's turn, handed to the loop by a send from another thread. Loop thread only.
    func flushScheduled() {
        shared.withLock { $0.isFlushScheduled = false }
        sendQueued()
    }

    /// Sends the queue, oldest first, in batches, until it is empty or the kernel refuses
    /// (`EAGAIN`: then it waits for writability). Loop thread only.
    func sendQueued() {
        while !isClosedOnLoop {
            let batch = shared.withLock { state -> ArraySlice<OutgoingDatagram> in
                let end = min(state.queue.count, state.queueStart + (usesBatchCalls ? buffers.slotCount : 1))
                return state.queue[state.queueStart..<end]
            }
            guard !batch.isEmpty else {
                setWatchesWritable(false)
                return
            }
            let outcome = transmit(batch)
            // Only the loop thread removes from the queue, so its front is still `batch`.
            let isWaiting = shared.withLock { state -> Bool in
                guard !state.isClosed else { return false }  // close() emptied the queue
                let consumed = outcome.sent + outcome.failed
                for datagram in batch.prefix(consumed) { state.queuedBytes -= datagram.bytes.count }
                state.queueStart += consumed
                if state.queueStart == state.queue.count {
                    state.queue.removeAll(keepingCapacity: state.queue.capacity <= 4 * limits.maximumQueuedDatagrams)
                    state.queueStart = 0
                } else if state.queueStart >= 1024 && state.queueStart * 2 >= state.queue.count {
                    state.queue.removeFirst(state.queueStart)  // compact once the sent prefix dominates
                    state.queueStart = 0
                }
                if outcome.isWouldBlock { state.isWaitingForWritable = true }
                return outcome.isWouldBlock
            }
            if isWaiting {
                setWatchesWritable(true)
                return
            }
        }
    }

    /// What one attempt to send a batch came to.
    struct TransmitOutcome {
        /// Datagrams the kernel took, from the front of the batch.
        var sent = 0
        /// Datagrams after those that the kernel refused with an error: dropped, counted.
        var failed = 0
        /// The kernel refused the next datagram with `EAGAIN`.
        var isWouldBlock = false
    }

    /// Sends the front of `batch`: `sendmmsg(2)` when ``usesBatchCalls``, else one `sendto(2)`.
    /// Counts what was sent and what failed. Loop thread only.
    private func transmit(_ batch: ArraySlice<OutgoingDatagram>) -> TransmitOutcome {
        #if os(Linux) && canImport(CEpoll)
        if usesBatchCalls && batch.count > 1 {
            return transmitBatch(batch)
        }
        #endif
        guard let first = batch.first else { return TransmitOutcome() }
        var name = first.destination
        let result = first.bytes.withUnsafeBytes { bytes in
            withUnsafePointer(to: &name) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendNow(bytes, to: $0, length: first.destinationLength) }
            }
        }
        switch result {
        case .sent: return TransmitOutcome(sent: 1)
        case .failed: return TransmitOutcome(failed: 1)
        case .wouldBlock: return TransmitOutcome(isWouldBlock: true)
        }
    }

    /// What one `sendto(2)` came to.
    enum SendResult {
        /// The kernel took the datagram.
        case sent
        /// The kernel refused it for now (`EAGAIN`).
        case wouldBlock
        /// The kernel refused it with an error (counted).
        case failed
    }

    /// Sends one datagram with `sendto(2)` and counts the outcome. Loop thread only.
    private func sendNow(_ bytes: UnsafeRawBufferPointer, to name: sockaddr_storage, length: socklen_t) -> SendResult {
        var name = name
        return withUnsafePointer(to: &name) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sendNow(bytes, to: $0, length: length) }
        }
    }

    /// Sends one datagram with `sendto(2)` and counts the outcome. Loop thread only.
    private func sendNow(_ bytes: UnsafeRawBufferPointer, to name: UnsafePointer<sockaddr>, length: socklen_t) -> SendResult {
        if simulatesFullSendBuffer() { return .wouldBlock }
        while true {
            #if canImport(Glibc)
            let count = Glibc.sendto(descriptor, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL), name, length)
            #else
            let count = Darwin.sendto(descriptor, bytes.baseAddress, bytes.count, 0, name, length)
            #endif
            if count >= 0 {
                shared.withLock { state in
                    state.statistics.datagramsSent += 1
                    state.statistics.bytesSent += bytes.count
                }
                return .sent
            }
            let error = SystemError.current("sendto")
            if error.isInterrupted { continue }
            if error.isWouldBlock { return .wouldBlock }
            shared.withLock { state in
                state.statistics.sendErrors += 1
                state.statistics.lastError = error
            }
            return .failed
        }
    }

    #if os(Linux) && canImport(CEpoll)
    /// Sends the front of `batch` with one `sendmmsg(2)`, through the send slots. Loop thread only.
    private func transmitBatch(_ batch: ArraySlice<OutgoingDatagram>) -> TransmitOutcome {
        if simulatesFullSendBuffer() { return TransmitOutcome(isWouldBlock: true) }
        let count = min(batch.count, buffers.slotCount)
        return withUnsafeTemporaryAllocation(of: tickwire_mmsghdr.self, capacity: count) { headers in
            for (slot, datagram) in batch.prefix(count).enumerated() {
                let payload = buffers.sendPayloads + slot * buffers.slotBytes
                datagram.bytes.withUnsafeBytes {
                    payload.copyMemory(from: $0.baseAddress ?? UnsafeRawPointer(payload), byteCount: $0.count)
                }
                buffers.sendVectors[slot].iov_len = datagram.bytes.count
                buffers.sendNames[slot] = datagram.destination
                var header = msghdr()
                header.msg_name = UnsafeMutableRawPointer(buffers.sendNames + slot)
                header.msg_namelen = datagram.destinationLength
                header.msg_iov = buffers.sendVectors + slot
                header.msg_iovlen = 1
                headers[slot] = tickwire_mmsghdr(msg_hdr: header, msg_len: 0)
            }
            while true {
                let sent = tickwire_sendmmsg(descriptor, headers.baseAddress, UInt32(count), Int32(MSG_NOSIGNAL))
                if sent >= 0 {
                    let bytes = batch.prefix(Int(sent)).reduce(0) { $0 + $1.bytes.count }
                    shared.withLock { state in
                        state.statistics.datagramsSent += Int(sent)
                        state.statistics.bytesSent += bytes
                    }
                    // A short count: the next datagram failed or would block; the next call says which.
                    return TransmitOutcome(sent: Int(sent))
                }
                let error = SystemError.current("sendmmsg")
                if error.isInterrupted { continue }
                if error.isWouldBlock { return TransmitOutcome(isWouldBlock: true) }
                // The first datagram failed: count it and drop it; the rest go in the next call.
                shared.withLock { state in
                    state.statistics.sendErrors += 1
                    state.statistics.lastError = error
                }
                return TransmitOutcome(failed: 1)
            }
        }
    }
    #endif

    /// `destination` as a `sockaddr_storage` and its length, for the kernel.
    static func storage(of destination: SocketAddress) -> (sockaddr_storage, socklen_t) {
        var storage = sockaddr_storage()
        var length: socklen_t = 0
        do {
            try destination.withSockAddr { (pointer, size) throws(SystemError) in
                withUnsafeMutableBytes(of: &storage) { raw in raw.copyMemory(from: UnsafeRawBufferPointer(start: pointer, count: Int(size)))
                }
                length = size
            }
        } catch {
            // `withSockAddr` fails only for a buffer without memory, which a `sockaddr_storage`
            // never is; were it to, the length stays 0 and `sendto` fails with `EINVAL`, counted.
            length = 0
        }
        return (storage, length)
    }
}
