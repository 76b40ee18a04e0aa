import TickwireIO

/// What bounds a peer's cost to the loop: the write timeout, and inflation in steps that go on
/// in later loop turns (``LoopPendingWork``) with reading paused meanwhile.
extension WebSocketChannel: LoopPendingWork {
    /// Starts the write timeout as the send buffer goes over its high-water mark; settling the
    /// accounting under the mark cancels it. When it fires still over the mark, the peer stopped reading.
    func startWriteTimer() {
        writeTimer = tcp.loop.schedule(after: .nanoseconds(Int64(clamping: writeTimeoutNanoseconds))) { [weak self] in
            guard let self else { return }
            self.writeTimer = nil
            guard !self.isClosed, self.connection.bufferedByteCount > self.connection.sendBufferLimits.highWaterMark else { return }
            let timeout = Duration.nanoseconds(Int64(clamping: self.writeTimeoutNanoseconds))
            self.closeDroppingOutput(reason: "the peer read too slowly: the send buffer stayed over its high-water mark for \(timeout)")
        }
    }

    /// Closes the socket at once, dropping what is buffered, and reports 1008 (policy violation)
    /// with `reason`: for a peer that stopped reading, which would never read a close frame.
    func closeDroppingOutput(reason: String) {
        connection.isClosing.store(true, ordering: .releasing)
        finish(WebSocketCloseFrame(code: .policyViolation, reason: reason))
        tcp.close()
    }

    /// Inflation stopped at this turn's budget: keeps the input the machine did not take, stops
    /// reading and asks the loop to go on next turn, after the other connections' events.
    func suspendReading(keeping rest: UnsafeRawBufferPointer) {
        unreadInput.append(contentsOf: rest.assumingMemoryBound(to: UInt8.self))
        guard !isInflationPending else { return }
        isInflationPending = true
        tcp.isReadPaused = true
        tcp.loop.requestPendingWork(self)
    }

    /// The next turn of a suspended inflation: feeds the machine the input it left, with a new
    /// budget, and reads again once it has taken all of it.
    func continuePendingWork() {
        isInflationPending = false
        guard !isClosed else {
            unreadInput = []
            return
        }
        shared.inflationSteps &+= 1
        var input: [UInt8] = []
        swap(&input, &unreadInput)
        input.withUnsafeBytes { receive($0) }  // may suspend again, keeping the rest in `unreadInput`
        writeReplies()
        if !isInflationPending && !isClosed && connection.bufferedByteCount < connection.sendBufferLimits.pauseReadingThreshold {
            tcp.isReadPaused = false
        }
    }
}
