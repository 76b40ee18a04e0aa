#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The TLS side of ``TCPChannel``: the handshake on readiness events, reads and writes through
/// the ``TLSSession``, and the decrypted bytes OpenSSL may hold between readiness events.
extension TCPChannel {
    /// Writes may go to the transport: always for plain TCP, after the handshake for TLS.
    var isTransportReady: Bool { tls?.isHandshakeComplete ?? true }

    /// A TLS channel whose TLS handshake has not completed yet (`false` for plain TCP).
    package var isTLSHandshaking: Bool { !isTransportReady }

    /// The poll interest for a TLS channel: the handshake's direction while it runs, then
    /// `otherwise` (plus writability when a read waits for it).
    static func tlsInterest(_ tls: TLSSession, otherwise: PollInterest) -> PollInterest {
        guard tls.isHandshakeComplete else { return tls.wantsWrite ? .write : .read }
        return tls.readWantsWrite ? otherwise.union(.write) : otherwise
    }

    /// Takes the handshake as far as the socket allows; once complete, sends what the owner
    /// wrote meanwhile and reads what came with the handshake. A failure closes the channel
    /// with ``tlsFailure`` set.
    func continueTLSHandshake() {
        guard let tls, !isClosed, !tls.isHandshakeComplete else { return }
        do {
            guard try tls.handshake() else {
                updateInterest()
                return
            }
        } catch {
            tlsFailure = error
            close(error: SystemError(call: "SSL_do_handshake", code: EPROTO))
            return
        }
        updateInterest()
        if bufferedByteCount > 0 { flush() }
        if !isClosed && !isReadPaused { readAvailable() }
    }

    /// `read(2)` or `SSL_read`: the count, 0 at end of stream (or `close_notify`), `nil` when it would block.
    func transportRead(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        guard let tls else { return try socket.read(into: buffer) }
        do {
            return try tls.read(into: buffer)
        } catch {
            tlsFailure = error
            throw SystemError(call: "SSL_read", code: EPROTO)
        }
    }

    /// `send(2)` or `SSL_write`: how many bytes were taken, `nil` when none could be.
    ///
    /// Over TLS, bytes that fit in one record go out as one record at once. More are encrypted
    /// a burst of up to ``tlsBurstBytes`` at a time into the loop's scratch buffer, and each
    /// burst leaves with one `send`, as a plain write does, rather than one `send` per record.
    /// Bytes once encrypted count as taken; the records the kernel does not take wait in the
    /// session's queue (counted in ``bufferedByteCount``) and go first on writability.
    func transportWrite(from bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        guard let tls else { return try socket.write(from: bytes) }
        return try tlsWrite(tls, first: bytes, then: UnsafeRawBufferPointer(start: nil, count: 0))
    }

    /// `sendmsg(2)` of two buffers, or their bytes in TLS records (see ``transportWrite(from:)``):
    /// when both fit in one record, a short `first` (a frame header) shares it with `second`.
    func transportWrite(from first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        guard let tls else { return try socket.write(from: first, then: second) }
        return try tlsWrite(tls, first: first, then: second)
    }

    /// The TLS side of both `transportWrite`s.
    private func tlsWrite(_ tls: TLSSession, first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer) throws(SystemError) -> Int?
    {
        do {
            // Records queued before go first; until the kernel takes them, nothing more is encrypted.
            guard try tls.sendQueue() else { return nil }
            let total = first.count + second.count
            // The record layer seals a header and its payload into one record without copying
            // them together, so every write takes the burst path below; OpenSSL's needs one buffer.
            if total <= TLSLibrary.maximumRecordBytes && !tls.isRecordLayerActive {
                if first.isEmpty || second.isEmpty {
                    let single = first.isEmpty ? second : first
                    return single.isEmpty ? 0 : try tls.write(from: single)
                }
                // One record, copied together rather than a record for each. If it is not taken,
                // the caller keeps `first` and `second` in order, the same bytes the retry starts with.
                return try withUnsafeTemporaryAllocation(byteCount: total, alignment: 16) { record throws(TLSError) -> Int? in
                    record.copyMemory(from: first)
                    UnsafeMutableRawBufferPointer(rebasing: record[first.count...]).copyMemory(from: second)
                    return try tls.write(from: UnsafeRawBufferPointer(record))
                }
            }
            // Several records: a frame header before a large payload gets a short record of its
            // own (no copy); a 64 KiB payload makes as many records as the two joined would.
            let scratch = loop.tlsWriteBuffer()
            var taken = 0
            while taken < total {
                let head =
                    taken < first.count ? UnsafeRawBufferPointer(rebasing: first[taken...]) : UnsafeRawBufferPointer(start: nil, count: 0)
                let rest = taken <= first.count ? second : UnsafeRawBufferPointer(rebasing: second[(taken - first.count)...])
                let wanted = min(total - taken, Self.tlsBurstBytes)
                let burst = try tls.writeBurst(head, then: rest, limit: wanted, scratch: scratch)
                taken += burst.taken
                guard burst.isSent, burst.taken == wanted else { break }
            }
            return taken > 0 ? taken : nil
        } catch {
            tlsFailure = error
            throw SystemError(call: "SSL_write", code: EPROTO)
        }
    }

    /// The most plain bytes encrypted before they are sent: six records, so that a 64 KiB
    /// message with its frame header (five records) leaves in one `send`.
    static let tlsBurstRecords = 6

    /// ``tlsBurstRecords`` records' plain bytes.
    static let tlsBurstBytes = tlsBurstRecords * TLSLibrary.maximumRecordBytes

    /// OpenSSL may hold decrypted bytes that no readiness event will announce (a read asked for
    /// fewer bytes than a record held, or reading was paused): read them on the next loop turn.
    func scheduleTLSPendingRead() {
        guard let tls, tls.hasPendingBytes, !isClosed, !isReadPaused, !isPendingTLSReadScheduled else { return }
        isPendingTLSReadScheduled = true
        loop.schedule(after: .zero) { [weak self] in
            guard let self else { return }
            self.isPendingTLSReadScheduled = false
            guard !self.isClosed, !self.isReadPaused else { return }
            self.readAvailable()
        }
    }
}
