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
    /// `SSL_write` with partial writes returns after each record; it is called again until the
    /// socket takes no more, so a large write costs one call here as a plain `send` does. Every
    /// record but the last goes to the kernel with `MSG_MORE` (and the last too when `moreFollows`),
    /// so that the records of one write leave in full segments rather than each ending in a short one.
    func transportWrite(from bytes: UnsafeRawBufferPointer, moreFollows: Bool = false) throws(SystemError) -> Int? {
        guard let tls else { return try socket.write(from: bytes) }
        var taken = 0
        do {
            while taken < bytes.count {
                let rest = UnsafeRawBufferPointer(rebasing: bytes[taken...])
                let isLast = rest.count <= TLSLibrary.maximumRecordBytes
                guard let count = try tls.write(from: rest, moreFollows: moreFollows || !isLast) else { break }
                taken += count
            }
        } catch {
            tlsFailure = error
            throw SystemError(call: "SSL_write", code: EPROTO)
        }
        return taken > 0 ? taken : nil
    }

    /// `sendmsg(2)` of two buffers, or their bytes in TLS records: a short `first` (a frame
    /// header) shares its record with the start of `second` (the payload) rather than going
    /// alone in a record and a segment of its own.
    func transportWrite(from first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        guard tls != nil else { return try socket.write(from: first, then: second) }
        guard first.count < Self.tlsJoinedHeadBytes else {
            guard let taken = try transportWrite(from: first, moreFollows: true) else { return nil }
            guard taken == first.count else { return taken }
            return taken + (try transportWrite(from: second) ?? 0)
        }
        // One record of `first` and the start of `second`, copied together (up to 16 KiB copied
        // against, usually, one record and one system call fewer). If it is not taken,
        // the caller keeps `first` and `second` in order, the same bytes the retry then starts with.
        let joined = min(TLSLibrary.maximumRecordBytes, first.count + second.count)
        let fromSecond = joined - first.count
        let taken = try withUnsafeTemporaryAllocation(byteCount: joined, alignment: 16) { record throws(SystemError) -> Int? in
            record.copyMemory(from: first)
            UnsafeMutableRawBufferPointer(rebasing: record[first.count...]).copyMemory(
                from: UnsafeRawBufferPointer(rebasing: second[..<fromSecond]))
            return try transportWrite(from: UnsafeRawBufferPointer(record), moreFollows: fromSecond < second.count)
        }
        guard let taken else { return nil }
        guard taken == joined, fromSecond < second.count else { return taken }
        return taken + (try transportWrite(from: UnsafeRawBufferPointer(rebasing: second[fromSecond...])) ?? 0)
    }

    /// A `first` shorter than this is joined with the start of `second` in one TLS record (a
    /// WebSocket frame header is at most 14 bytes; the queued frames before a payload may be more).
    static let tlsJoinedHeadBytes = 4 * 1024

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
