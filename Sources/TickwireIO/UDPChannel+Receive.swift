#if os(Linux) && canImport(CEpoll)
import CEpoll
#endif

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

extension UDPChannel {
    /// One received datagram's place in the receive slots: its slot, its length as the kernel
    /// reported it, and whether the kernel truncated it.
    struct ReceivedDatagram {
        var slot: Int
        var length: Int
        var isTruncated: Bool
    }

    /// Reads until `EAGAIN` or ``Limits/datagramsPerTurn``, whichever comes first, and hands each
    /// datagram to ``onDatagram``; a datagram left over waits for the next turn (the poller
    /// is level-triggered, so it reports the socket again). Loop thread only.
    func receiveAvailable() {
        var remaining = limits.datagramsPerTurn
        while remaining > 0 && !isClosedOnLoop {
            let wanted = usesBatchCalls ? min(remaining, buffers.slotCount) : 1
            let received: [ReceivedDatagram]
            do {
                guard let datagrams = try receive(upTo: wanted) else { return }  // EAGAIN: drained
                received = datagrams
            } catch {
                shared.withLock { state in
                    state.statistics.receiveErrors += 1
                    state.statistics.lastError = error
                }
                return
            }
            deliver(received)
            remaining -= received.count
            if received.count < wanted { return }  // the kernel had no more: drained
        }
    }

    /// Counts a batch, then hands its datagrams that fit to ``onDatagram``: the counters are
    /// current when the handler runs.
    private func deliver(_ received: [ReceivedDatagram]) {
        let maximum = limits.maximumDatagramBytes
        shared.withLock { state in
            for datagram in received {
                if datagram.isTruncated || datagram.length > maximum {
                    state.statistics.receivedTooLarge += 1
                } else {
                    state.statistics.datagramsReceived += 1
                    state.statistics.bytesReceived += datagram.length
                }
            }
        }
        for datagram in received where !datagram.isTruncated && datagram.length <= maximum {
            guard !isClosedOnLoop else { return }
            let name = UnsafeRawPointer(buffers.receiveNames + datagram.slot).assumingMemoryBound(to: sockaddr.self)
            guard let source = SocketAddress.from(name) else {
                shared.withLock { state in
                    state.statistics.datagramsReceived -= 1
                    state.statistics.bytesReceived -= datagram.length
                    state.statistics.receiveErrors += 1
                    state.statistics.lastError = SystemError(call: "recvmsg", code: EAFNOSUPPORT)
                }
                continue
            }
            let bytes = UnsafeRawBufferPointer(start: buffers.receivePayloads + datagram.slot * buffers.slotBytes, count: datagram.length)
            let handler = onDatagram
            handler(bytes, source)
        }
    }

    /// Receives up to `count` datagrams into the receive slots: `recvmmsg(2)` when
    /// ``usesBatchCalls``, else one `recvmsg(2)`.
    ///
    /// - Parameter count: 1...``batchCount``.
    /// - Returns: The datagrams received (at least one), or `nil` when none is waiting (`EAGAIN`).
    /// - Throws: ``SystemError`` naming `recvmmsg` or `recvmsg`.
    private func receive(upTo count: Int) throws(SystemError) -> [ReceivedDatagram]? {
        #if os(Linux) && canImport(CEpoll)
        if usesBatchCalls {
            return try receiveBatch(upTo: count)
        }
        #endif
        return try receiveOne()
    }

    /// A message header over receive slot `slot`.
    private func receiveHeader(slot: Int) -> msghdr {
        var header = msghdr()
        header.msg_name = UnsafeMutableRawPointer(buffers.receiveNames + slot)
        header.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
        header.msg_iov = buffers.receiveVectors + slot
        header.msg_iovlen = 1
        return header
    }

    /// One `recvmsg(2)` into slot 0: the path where there is no `recvmmsg` (Darwin).
    private func receiveOne() throws(SystemError) -> [ReceivedDatagram]? {
        var header = receiveHeader(slot: 0)
        while true {
            let length = recvmsg(descriptor, &header, 0)
            if length >= 0 {
                let isTruncated = header.msg_flags & Int32(MSG_TRUNC) != 0
                return [ReceivedDatagram(slot: 0, length: length, isTruncated: isTruncated)]
            }
            let error = SystemError.current("recvmsg")
            if error.isInterrupted { continue }
            if error.isWouldBlock { return nil }
            throw error
        }
    }

    #if os(Linux) && canImport(CEpoll)
    /// One `recvmmsg(2)` into slots 0..<`count`.
    private func receiveBatch(upTo count: Int) throws(SystemError) -> [ReceivedDatagram]? {
        try withUnsafeTemporaryAllocation(of: tickwire_mmsghdr.self, capacity: count) { headers throws(SystemError) in
            for slot in 0..<count {
                headers[slot] = tickwire_mmsghdr(msg_hdr: receiveHeader(slot: slot), msg_len: 0)
            }
            while true {
                let received = tickwire_recvmmsg(descriptor, headers.baseAddress, UInt32(count), 0, nil)
                if received >= 0 {
                    return (0..<Int(received)).map { slot in
                        ReceivedDatagram(
                            slot: slot, length: Int(headers[slot].msg_len),
                            isTruncated: headers[slot].msg_hdr.msg_flags & Int32(MSG_TRUNC) != 0)
                    }
                }
                let error = SystemError.current("recvmmsg")
                if error.isInterrupted { continue }
                if error.isWouldBlock { return nil }
                throw error
            }
        }
    }
    #endif
}
