import CTLS

#if canImport(Glibc)
import Glibc
#endif

/// One TLS connection (an OpenSSL `SSL`) over a non-blocking socket: the handshake, then
/// reads and writes of plain bytes, each of which says when it must wait for the socket.
///
/// `SSL_read`/`SSL_write` would block → `nil`, and ``wantsWrite`` says whether the socket must
/// become writable (rather than readable) before the call can go on; the ``TCPChannel`` maps that
/// to its poll interest. The session reads and writes the socket itself (through a BIO that sends
/// with `MSG_NOSIGNAL`) and never closes it.
///
/// After a TLS 1.3 handshake, ``TLSRecordLayer`` seals and opens the records (no copy through
/// OpenSSL's record buffers); TLS 1.2 stays with `SSL_read` and `SSL_write`.
///
/// Not thread-safe: it belongs to its channel's loop thread.
package final class TLSSession {
    private let ssl: OpaquePointer
    /// `true` for the accepting side.
    package let isServer: Bool
    /// The handshake finished; reads and writes carry application bytes.
    package private(set) var isHandshakeComplete = false
    /// The last call that could not go on needs the socket writable (`SSL_ERROR_WANT_WRITE`).
    package private(set) var wantsWrite = false
    /// A read stopped for want of writability (a TLS 1.3 key update to answer, say).
    package private(set) var readWantsWrite = false
    /// The BIO sends with `MSG_MORE` (the last ``write(from:moreFollows:)`` said more follows).
    private var isCorking = false
    /// The socket BIO's state, owned by the BIO (which the `SSL` owns): its queue of records
    /// written by ``writeBurst(_:then:limit:scratch:)`` and not yet taken by the kernel.
    private let bioState: UnsafeMutablePointer<tickwire_bio_state>
    /// The record layer that seals and opens this connection's TLS 1.3 records after the
    /// handshake, or `nil` while OpenSSL does (during the handshake, and for TLS 1.2).
    private var records: TLSRecordLayer?
    /// After the handshake, TLS 1.3 records are sealed and opened by ``TLSRecordLayer`` (`true`,
    /// the default) or by OpenSSL's `SSL_read` and `SSL_write` (`false`: tests pair the two).
    /// Set before the handshake completes.
    package var sealsOwnRecords = true
    /// ``TLSRecordLayer`` seals and opens this connection's records (the handshake is complete).
    package var isRecordLayerActive: Bool { records != nil }
    /// Records the record layer seals under one key before it sends a `KeyUpdate` (tests lower it
    /// to see key updates; see ``TLSRecordLayer/defaultRecordsPerWriteKey``). Set before the handshake completes.
    package var recordsPerWriteKey = TLSRecordLayer.defaultRecordsPerWriteKey

    private init(ssl: OpaquePointer, bioState: UnsafeMutablePointer<tickwire_bio_state>, isServer: Bool) {
        self.ssl = ssl
        self.bioState = bioState
        self.isServer = isServer
    }

    deinit { SSL_free(ssl) }

    private static func make(
        context: OpaquePointer, descriptor: Int32
    ) throws(TLSError) -> (ssl: OpaquePointer, bioState: UnsafeMutablePointer<tickwire_bio_state>) {
        ERR_clear_error()
        guard let method = TLSLibrary.socketMethod, let ssl = SSL_new(context) else {
            throw TLSError.fromQueue(.configuration, fallback: "SSL_new failed")
        }
        guard let bio = tickwire_bio_new(method, descriptor, TLSLibrary.inboundBytes), let state = tickwire_bio_get_state(bio) else {
            SSL_free(ssl)
            throw TLSError.fromQueue(.configuration, fallback: "BIO_new failed")
        }
        SSL_set_bio(ssl, bio, bio)  // the SSL owns the BIO (one reference for both directions)
        return (ssl, state)
    }

    /// A server session on an accepted socket.
    ///
    /// - Throws: ``TLSError`` when OpenSSL cannot allocate the session.
    package static func server(context: TLSServerContext, descriptor: Int32) throws(TLSError) -> TLSSession {
        let made = try make(context: context.context, descriptor: descriptor)
        SSL_set_accept_state(made.ssl)
        return TLSSession(ssl: made.ssl, bioState: made.bioState, isServer: true)
    }

    /// A client session: sends `host` as SNI (unless it is an IP address) and, unless the
    /// configuration skips verification, checks the certificate names `host`.
    ///
    /// - Throws: ``TLSError`` when OpenSSL cannot allocate the session or refuses the host.
    package static func client(context: TLSClientContext, descriptor: Int32, host: String) throws(TLSError) -> TLSSession {
        let made = try make(context: context.context, descriptor: descriptor)
        let ssl = made.ssl
        let session = TLSSession(ssl: ssl, bioState: made.bioState, isServer: false)
        let name = context.configuration.serverName ?? host
        let isAddress = SocketAddress(numericHost: name, port: 0) != nil
        if !isAddress {
            guard tickwire_SSL_set_tlsext_host_name(ssl, name) == 1 else {
                throw TLSError.fromQueue(.configuration, fallback: "cannot send the server name '\(name)'")
            }
        }
        if !context.configuration.insecureSkipVerificationForLocalTestingOnly {
            let accepted =
                isAddress
                ? X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), name) == 1
                : SSL_set1_host(ssl, name) == 1
            guard accepted else { throw TLSError.fromQueue(.configuration, fallback: "cannot check the certificate for '\(name)'") }
        }
        SSL_set_connect_state(ssl)
        return session
    }

    /// Takes the handshake as far as the socket allows.
    ///
    /// - Returns: `true` once the handshake is complete; `false` when it waits for the socket (``wantsWrite`` says which way).
    /// - Throws: ``TLSError``: the handshake failed, or the peer's certificate was refused.
    package func handshake() throws(TLSError) -> Bool {
        ERR_clear_error()
        let result = SSL_do_handshake(ssl)
        if result == 1 {
            if sealsOwnRecords {
                records = try TLSRecordLayer(ssl: ssl, state: bioState, isServer: isServer)
                records?.recordsPerWriteKey = recordsPerWriteKey
            } else {
                tickwire_bio_forget_secrets(bioState)
            }
            isHandshakeComplete = true
            wantsWrite = false
            return true
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ:
            wantsWrite = false
            return false
        case SSL_ERROR_WANT_WRITE:
            wantsWrite = true
            return false
        case let code:
            throw failure(code: code, stage: .handshake)
        }
    }

    /// Reads decrypted bytes: as many records as OpenSSL holds or the socket brings, until
    /// `buffer` is full or the socket is drained, so that a message of several records reaches
    /// the reader in one piece (one call of the channel's `onRead`) rather than one per record.
    ///
    /// The end of the stream or a failure met after some bytes were read is kept for the next
    /// call, which reports it (``hasDeferredReadEnd``).
    ///
    /// - Returns: The count read; 0 when the peer closed the TLS connection cleanly
    ///   (`close_notify`); `nil` when nothing can be read now.
    /// - Throws: ``TLSError`` (connection): a bad record, a cut mid-record, a reset.
    package func read(into buffer: UnsafeMutableRawBufferPointer) throws(TLSError) -> Int? {
        if let deferredReadFailure {
            self.deferredReadFailure = nil
            throw deferredReadFailure
        }
        if isDeferredEndOfStream {
            isDeferredEndOfStream = false
            return 0
        }
        guard let base = buffer.baseAddress else { return nil }
        var filled = 0
        readWantsWrite = false
        while filled < buffer.count {
            let count: Int?
            do {
                count = try readRecord(into: base + filled, count: buffer.count - filled)
            } catch {
                guard filled > 0 else { throw error }
                deferredReadFailure = error
                break
            }
            guard let count else { break }
            guard count > 0 else {
                guard filled > 0 else { return 0 }
                isDeferredEndOfStream = true
                break
            }
            filled += count
            // What OpenSSL holds is consumed and the socket's last read was short: another read
            // would only find it empty (one `recv` that fails with EAGAIN).
            if bioState.pointee.isDrained != 0 && !hasPendingBytes { break }
        }
        return filled > 0 ? filled : nil
    }

    /// A failure met by ``read(into:)`` after it had read bytes, reported by the next call.
    private var deferredReadFailure: TLSError?
    /// The end of the stream met by ``read(into:)`` after it had read bytes, reported by the next call.
    private var isDeferredEndOfStream = false

    /// ``read(into:)`` met the end of the stream or a failure and will report it on the next call.
    package var hasDeferredReadEnd: Bool { deferredReadFailure != nil || isDeferredEndOfStream }

    /// One `SSL_read`: the bytes of at most one record.
    ///
    /// - Returns: The count read; 0 at `close_notify`; `nil` when nothing can be read now.
    /// - Throws: ``TLSError`` (connection) when the connection failed.
    private func readRecord(into bytes: UnsafeMutableRawPointer, count: Int) throws(TLSError) -> Int? {
        if let records {
            defer { readWantsWrite = records.isAnswerQueued }
            return try records.readRecord(into: bytes, count: count)
        }
        ERR_clear_error()
        let result = SSL_read(ssl, bytes, Int32(clamping: count))
        if result > 0 { return Int(result) }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ: return nil
        case SSL_ERROR_WANT_WRITE:
            readWantsWrite = true
            return nil
        case SSL_ERROR_ZERO_RETURN: return 0
        case let code: throw failure(code: code, stage: .connection)
        }
    }

    /// Encrypts and sends bytes; after `nil`, the next call must start with the same bytes.
    ///
    /// - Parameters:
    ///   - bytes: The plain bytes; one call takes at most one record's worth (16 KiB).
    ///   - moreFollows: The caller writes more at once after these (the rest of a large write):
    ///     the record goes to the kernel with `MSG_MORE`, to leave with the next in full segments.
    ///     The last write of a burst must pass `false`, or its tail waits for the kernel's timer.
    /// - Returns: How many of `bytes` were taken (one or more whole records), or `nil` when none can be now.
    /// - Throws: ``TLSError`` (connection) when the connection failed.
    package func write(from bytes: UnsafeRawBufferPointer, moreFollows: Bool = false) throws(TLSError) -> Int? {
        guard !bytes.isEmpty else { return 0 }
        if records != nil {
            guard try sendQueue() else { return nil }
            let length = min(bytes.count, TLSLibrary.maximumRecordBytes)
            return try withUnsafeTemporaryAllocation(
                byteCount: TLSTrafficKey.recordBytes(plaintextBytes: length) + TLSRecordLayer.keyUpdateRecordBytes, alignment: 16
            ) {
                scratch throws(TLSError) -> Int? in
                try writeBurst(bytes, then: UnsafeRawBufferPointer(start: nil, count: 0), limit: length, scratch: scratch).taken
            }
        }
        if moreFollows != isCorking {
            isCorking = moreFollows
            tickwire_bio_set_more(SSL_get_wbio(ssl), moreFollows ? 1 : 0)
        }
        ERR_clear_error()
        let result = SSL_write(ssl, bytes.baseAddress, Int32(clamping: bytes.count))
        if result > 0 { return Int(result) }
        if isCorking {
            // The burst stops here; what OpenSSL sends before the retry (its own records) is not held.
            isCorking = false
            tickwire_bio_set_more(SSL_get_wbio(ssl), 0)
        }
        switch SSL_get_error(ssl, result) {
        case SSL_ERROR_WANT_READ, SSL_ERROR_WANT_WRITE: return nil
        case let code: throw failure(code: code, stage: .connection)
        }
    }

    /// Encrypts `first` and then `second`, up to `limit` bytes, into records gathered in
    /// `scratch`, and sends them all with one `send`: the records of a large write cost one
    /// system call rather than one each. What the kernel does not take waits in the socket BIO's
    /// queue (``queuedByteCount``) for ``sendQueue()``; `scratch` is free again on return.
    ///
    /// Call it with an empty queue (after ``sendQueue()`` returned `true`), or the records wait behind it.
    ///
    /// - Parameters:
    ///   - first: The first plain bytes.
    ///   - second: The plain bytes after them (may be empty).
    ///   - limit: The most plain bytes to take, at most what `scratch` holds as records (``burstScratchBytes(records:)``).
    ///   - scratch: Where the records are gathered; too small a buffer spills into the queue (correct, but copied).
    /// - Returns: How many bytes were taken (all of them up to `limit`, unless OpenSSL stopped for
    ///   want of the socket), and whether the kernel took all their records.
    /// - Throws: ``TLSError`` (connection) when the connection failed or memory ran out.
    package func writeBurst(
        _ first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer, limit: Int, scratch: UnsafeMutableRawBufferPointer
    ) throws(TLSError) -> (taken: Int, isSent: Bool) {
        if let records { return try records.writeBurst(first, then: second, limit: limit, scratch: scratch) }
        let bio = SSL_get_wbio(ssl)
        tickwire_bio_begin_burst(bio, scratch.baseAddress, scratch.count)
        var taken = 0
        var writeError: TLSError?
        var isStopped = false
        for index in 0..<2 where !isStopped {
            let piece = index == 0 ? first : second
            var offset = 0
            while offset < piece.count && taken < limit && !isStopped {
                ERR_clear_error()
                let count = min(piece.count - offset, limit - taken)
                let result = SSL_write(ssl, piece.baseAddress.map { $0 + offset }, Int32(clamping: count))
                if result > 0 {
                    offset += Int(result)
                    taken += Int(result)
                    continue
                }
                isStopped = true  // for want of the socket, or failed
                let code = SSL_get_error(ssl, result)
                if code != SSL_ERROR_WANT_READ && code != SSL_ERROR_WANT_WRITE { writeError = failure(code: code, stage: .connection) }
            }
        }
        let sent = tickwire_bio_end_burst(bio)  // always, so that `scratch` is free again
        if let writeError { throw writeError }
        switch sent {
        case 1: return (taken, true)
        case 0: return (taken, false)
        default:
            let code = errno
            throw TLSError(.connection, reason: SystemError(call: "send", code: code).message)
        }
    }

    /// Room in a burst's scratch buffer for `records` full records: their plain bytes and what
    /// each adds (a TLS 1.3 AES-GCM record 22 bytes: header, content type, tag; a TLS 1.2 one 29).
    ///
    /// - Parameter records: How many 16 KiB records.
    /// - Returns: The bytes the buffer needs.
    package static func burstScratchBytes(records: Int) -> Int {
        records * (TLSLibrary.maximumRecordBytes + recordOverheadBytes)
    }

    /// Room per record beyond its plain bytes (more than any AEAD suite adds; a CBC suite of TLS 1.2 may
    /// add more, and then the burst spills into the queue).
    static let recordOverheadBytes = 64

    /// Sends the records ``writeBurst(_:then:limit:scratch:)`` left in the BIO's queue, with one `send`.
    ///
    /// - Returns: `true` once the queue is empty; `false` when the socket takes no more now (the rest stays queued).
    /// - Throws: ``TLSError`` (connection) when the connection failed.
    package func sendQueue() throws(TLSError) -> Bool {
        guard queuedByteCount > 0 else { return true }
        switch tickwire_bio_send_queue(SSL_get_wbio(ssl)) {
        case 1: return true
        case 0: return false
        default:
            let code = errno
            throw TLSError(.connection, reason: SystemError(call: "send", code: code).message)
        }
    }

    /// Encrypted bytes in the BIO's queue that the kernel has not taken yet (see ``writeBurst(_:then:limit:scratch:)``).
    package var queuedByteCount: Int { Int(bioState.pointee.queueEnd - bioState.pointee.queueStart) }

    /// Bytes OpenSSL or the socket BIO holds (decrypted, or received and not yet decrypted) that
    /// no readiness event will announce: a read would return them without touching the socket.
    package var hasPendingBytes: Bool {
        if let records { return records.hasPendingBytes }
        return tickwire_bio_inbound_count(bioState) > 0 || SSL_has_pending(ssl) == 1
    }

    /// `KeyUpdate`s the record layer received and sent, or `nil` while OpenSSL seals the records.
    package var recordLayerKeyUpdates: (received: Int, sent: Int)? { records?.keyUpdates }

    /// Asks OpenSSL to send a `KeyUpdate` that requests one from the peer with the next record it
    /// writes (`SSL_key_update`). For sessions whose records OpenSSL seals (``sealsOwnRecords``
    /// `false`): tests make an OpenSSL peer ask the record layer for a key update.
    ///
    /// - Returns: Whether OpenSSL took the request.
    package func requestKeyUpdate() -> Bool {
        guard records == nil else { return false }
        return SSL_key_update(ssl, SSL_KEY_UPDATE_REQUESTED) == 1
    }

    /// Seals `bytes` as records of `contentType` and sends them, through the record layer: tests
    /// send what this library never sends on its own (other alerts, handshake messages, padding only).
    ///
    /// - Returns: `false` while OpenSSL seals the records.
    /// - Throws: ``TLSError`` (connection) when OpenSSL or the connection failed.
    package func sendRecordsForTesting(_ bytes: [UInt8], contentType: UInt8) throws(TLSError) -> Bool {
        guard let records else { return false }
        try records.sendForTesting(bytes, contentType: contentType)
        return true
    }

    /// Sends `close_notify` (once; a failure is ignored, the socket is about to close).
    package func shutdown() {
        guard isHandshakeComplete else { return }
        if let records {
            do {
                try records.sendCloseNotify()
            } catch {
                // Ignored, as a failed SSL_shutdown is: the socket is about to close.
            }
            return
        }
        if isCorking {
            isCorking = false
            tickwire_bio_set_more(SSL_get_wbio(ssl), 0)
        }
        ERR_clear_error()
        _ = SSL_shutdown(ssl)
        ERR_clear_error()
    }

    /// The negotiated ALPN protocol, or `nil` when none was.
    package var alpnProtocol: String? {
        var data: UnsafePointer<UInt8>?
        var length: UInt32 = 0
        SSL_get0_alpn_selected(ssl, &data, &length)
        guard let data, length > 0 else { return nil }
        return String(decoding: UnsafeBufferPointer(start: data, count: Int(length)), as: UTF8.self)
    }

    /// The negotiated protocol version: `TLSv1.3`, `TLSv1.2`.
    package var protocolVersion: String { String(cString: SSL_get_version(ssl)) }

    /// The negotiated cipher suite's standard name (`TLS_AES_128_GCM_SHA256`), or `nil` before the handshake.
    package var cipherSuite: String? {
        guard let cipher = SSL_get_current_cipher(ssl), let name = SSL_CIPHER_standard_name(cipher) else { return nil }
        return String(cString: name)
    }

    private func failure(code: Int32, stage: TLSError.Category) -> TLSError {
        if code == SSL_ERROR_SYSCALL {
            let systemError = errno
            let reason = TLSError.drainQueue(
                fallback: systemError == 0
                    ? "the connection closed without close_notify"
                    : SystemError(call: "recv/send", code: systemError).message)
            return TLSError(stage, reason: reason)
        }
        let verifyResult = SSL_get_verify_result(ssl)
        var reason = TLSError.drainQueue(fallback: "OpenSSL error \(code)")
        if stage == .handshake, verifyResult != X509_V_OK, let text = X509_verify_cert_error_string(verifyResult) {
            reason += ": " + String(cString: text)
            return TLSError(.verification, reason: reason)
        }
        return TLSError(stage, reason: reason)
    }
}

@available(*, unavailable)
extension TLSSession: Sendable {}
