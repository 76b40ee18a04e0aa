import CTLS

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A TLS 1.3 connection's records after the handshake, sealed and opened with OpenSSL's AEAD by
/// this layer rather than by `SSL_read` and `SSL_write` (RFC 8446 section 5).
///
/// OpenSSL runs the handshake; once it is complete, this layer takes over the connection's
/// records, as kernel TLS takes them over where the kernel offers it. A record is decrypted from
/// the socket BIO's inbound buffer (one `recv` for the records of a 64 KiB message) straight into
/// the reader's buffer, and encrypted from the writer's bytes straight into the buffer that goes
/// to `send`: each byte crosses memory once each way, where `SSL_read` and `SSL_write` copy it
/// once more through OpenSSL's record buffers, and a frame header and its payload share records
/// without being copied together.
///
/// It takes over TLS 1.3 with AES-GCM or ChaCha20-Poly1305 when OpenSSL reported the
/// application traffic secrets (``init(ssl:state:isServer:)``); TLS 1.2 stays with OpenSSL. After
/// the handshake it handles what TLS 1.3 may still send: application data, alerts
/// (`close_notify` ends the stream, any other fails the connection), `KeyUpdate` (its keys move
/// on, and answer when asked), and on a client the server's `NewSessionTicket`s (not kept: this
/// library does not resume sessions). It updates its own sending key every
/// ``recordsPerWriteKey`` records, within AES-GCM's limit (RFC 8446 section 5.5).
///
/// Not thread-safe: it belongs to its session's loop thread.
final class TLSRecordLayer {
    /// The most plaintext bytes in a record.
    static let maximumPlaintextBytes = TLSLibrary.maximumRecordBytes
    /// The most bytes in a record's body: plaintext, content type, padding and tag (RFC 8446 section 5.2).
    static let maximumBodyBytes = maximumPlaintextBytes + 256
    /// The most bytes of post-handshake handshake messages held while they arrive in pieces.
    static let maximumHandshakeBytes = maximumPlaintextBytes
    /// Records sealed under one key before this layer sends a `KeyUpdate` and moves to the next,
    /// within the 2^24.5 full records RFC 8446 section 5.5 allows AES-GCM.
    static let defaultRecordsPerWriteKey: UInt64 = 1 << 24
    /// Records in a row that bring no application bytes (empty application data, handshake
    /// messages) before the connection fails, as OpenSSL allows: a peer cannot keep a read busy
    /// with records that give the reader nothing.
    static let maximumEmptyRecords = 32
    /// A `KeyUpdate` record's length (a 5-byte handshake message).
    static let keyUpdateRecordBytes = TLSTrafficKey.recordBytes(plaintextBytes: 5)

    private let state: UnsafeMutablePointer<tickwire_bio_state>
    private let reading: TLSTrafficKey
    private let writing: TLSTrafficKey
    private let isServer: Bool
    /// Records sealed under one key before the next (``defaultRecordsPerWriteKey``; tests lower it).
    var recordsPerWriteKey = defaultRecordsPerWriteKey
    /// Plaintext of a record opened for a read that had no room for all of it: bytes
    /// [heldStart, heldEnd) of `held`, which is freed once read.
    private var held: UnsafeMutableRawPointer?
    private var heldStart = 0
    private var heldEnd = 0
    /// Post-handshake handshake bytes of a message not yet whole.
    private var handshakeBytes: [UInt8] = []
    /// The peer sent `close_notify`: every read from now on returns 0.
    private var isClosedByPeer = false
    /// Records in a row that brought no application bytes (``maximumEmptyRecords``).
    private var emptyRecordsInARow = 0
    /// A `KeyUpdate` answer went to the queue for want of the socket (see ``isAnswerQueued``).
    private var hasQueuedAnswer = false
    /// `close_notify` was sealed: nothing more is.
    private var isCloseNotifySent = false
    /// A `KeyUpdate` answer waits in the queue for the socket to become writable (until the queue drains).
    var isAnswerQueued: Bool { hasQueuedAnswer && state.pointee.queueEnd > state.pointee.queueStart }
    /// `KeyUpdate`s received from the peer, and sent (answers and this layer's own, every ``recordsPerWriteKey`` records).
    private(set) var keyUpdates = (received: 0, sent: 0)

    /// Takes over the records of `ssl`, whose handshake has just completed, or returns `nil` when
    /// this layer does not handle the connection (TLS 1.2, another suite, no secrets reported,
    /// bytes OpenSSL already decrypted): then OpenSSL goes on with it. Wipes the secrets either way.
    ///
    /// - Throws: ``TLSError`` (connection) when OpenSSL cannot derive the keys.
    init?(ssl: OpaquePointer, state: UnsafeMutablePointer<tickwire_bio_state>, isServer: Bool) throws(TLSError) {
        defer { tickwire_bio_forget_secrets(state) }
        guard SSL_version(ssl) == TLS1_3_VERSION, SSL_has_pending(ssl) == 0, let cipher = SSL_get_current_cipher(ssl),
            let suite = TLSRecordSuite(protocolIdentifier: SSL_CIPHER_get_protocol_id(cipher))
        else { return nil }
        let length = suite.digest.bytes
        guard state.pointee.clientSecretLength == length, state.pointee.serverSecretLength == length else { return nil }
        // In place (no copy of the C arrays on the stack); the keys own and wipe these copies.
        let clientSecret = withUnsafeBytes(of: &state.pointee.clientSecret) { Array($0.prefix(length)) }
        let serverSecret = withUnsafeBytes(of: &state.pointee.serverSecret) { Array($0.prefix(length)) }
        self.state = state
        self.isServer = isServer
        reading = try TLSTrafficKey(suite: suite, secret: isServer ? clientSecret : serverSecret, sealing: false)
        writing = try TLSTrafficKey(suite: suite, secret: isServer ? serverSecret : clientSecret, sealing: true)
    }

    deinit { releaseHeld() }

    // MARK: Reading

    /// Plaintext this layer holds, or a whole record received and not yet opened: a read would
    /// return bytes without touching the socket (part of a record does not count: its rest
    /// comes with a readiness event).
    var hasPendingBytes: Bool { heldEnd > heldStart || completeRecordBodyBytes() != nil }

    /// The bytes of at most one record: plaintext held from the last record, or the next
    /// record's, opened straight into `out` when they fit.
    ///
    /// - Returns: The count read; 0 after `close_notify`; `nil` when no whole record can be read now.
    /// - Throws: ``TLSError`` (connection): a record that does not authenticate or breaks RFC 8446,
    ///   an alert, the end of the stream without `close_notify`, a failed `recv`.
    func readRecord(into out: UnsafeMutableRawPointer, count: Int) throws(TLSError) -> Int? {
        if heldEnd > heldStart { return takeHeld(into: out, count: count) }
        if isClosedByPeer { return 0 }
        while true {
            guard let bodyBytes = try nextRecordBodyBytes(), let inbound = state.pointee.inbound else { return nil }
            let header = UnsafePointer(inbound + state.pointee.inboundStart)
            let openedBytes = bodyBytes - TLSTrafficKey.tagBytes
            let isDirect = count >= openedBytes
            let target = isDirect ? out : try heldBuffer()
            try reading.open(header: header, bodyBytes: bodyBytes, into: target)
            state.pointee.inboundStart += 5 + bodyBytes
            tickwire_bio_release_inbound_if_read(state)
            let content = target.assumingMemoryBound(to: UInt8.self)
            var end = openedBytes
            while end > 0 && content[end - 1] == 0 { end -= 1 }  // the padding after the content type
            guard end > 0 else { throw Self.failure("a TLS record with no content type") }
            let length = end - 1
            guard length <= Self.maximumPlaintextBytes else { throw Self.failure("record overflow") }
            if content[length] == 23 && length > 0 {
                emptyRecordsInARow = 0
            } else {
                emptyRecordsInARow += 1
                guard emptyRecordsInARow <= Self.maximumEmptyRecords else {
                    throw Self.failure("more than \(Self.maximumEmptyRecords) TLS records in a row without application data")
                }
            }
            // A handshake message in pieces must not be interleaved with other records (RFC 8446 section 5.1).
            guard content[length] == 22 || handshakeBytes.isEmpty else {
                throw Self.failure("a TLS record inside a fragmented handshake message")
            }
            switch content[length] {
            case 23:  // application_data
                guard length > 0 else {
                    if !isDirect { releaseHeld() }
                    continue
                }
                guard !isDirect else { return length }
                heldStart = 0
                heldEnd = length
                return takeHeld(into: out, count: count)
            case 21:  // alert
                defer { if !isDirect { releaseHeld() } }
                guard try receiveAlert(content, count: length) else { continue }
                return 0
            case 22:  // handshake
                defer { if !isDirect { releaseHeld() } }
                try receiveHandshake(content, count: length)
            case let type:
                throw Self.failure("unexpected TLS record type \(type)")
            }
        }
    }

    /// The body length of the whole record at the front of the inbound buffer, or `nil` when
    /// only part of one (or nothing) is there.
    private func completeRecordBodyBytes() -> Int? {
        let available = state.pointee.inboundEnd - state.pointee.inboundStart
        guard available >= 5, let inbound = state.pointee.inbound else { return nil }
        let header = inbound + state.pointee.inboundStart
        let bodyBytes = Int(header[3]) << 8 | Int(header[4])
        return available >= 5 + bodyBytes ? bodyBytes : nil
    }

    /// The next record's body length once the whole record is in the inbound buffer, receiving
    /// from the socket as needed; `nil` when the socket has no more now.
    private func nextRecordBodyBytes() throws(TLSError) -> Int? {
        while true {
            let available = state.pointee.inboundEnd - state.pointee.inboundStart
            if available >= 5, let inbound = state.pointee.inbound {
                let header = inbound + state.pointee.inboundStart
                guard header[0] == 23 else { throw Self.failure("unexpected TLS record type \(header[0]) after the handshake") }
                guard header[1] == 3, header[2] == 3 else { throw Self.failure("wrong TLS record version") }
                let bodyBytes = Int(header[3]) << 8 | Int(header[4])
                guard bodyBytes <= Self.maximumBodyBytes else { throw Self.failure("record overflow") }
                guard bodyBytes > TLSTrafficKey.tagBytes else { throw Self.failure("a TLS record too short for its tag") }
                if available >= 5 + bodyBytes { return bodyBytes }
            }
            let received = tickwire_bio_receive_inbound(state)
            if received > 0 { continue }
            if received == 0 {
                // Part of a record, or none: either way the peer left without close_notify.
                throw Self.failure("unexpected eof while reading")
            }
            let code = errno
            if code == EAGAIN || code == EWOULDBLOCK { return nil }
            throw TLSError(.connection, reason: SystemError(call: "recv", code: code).message)
        }
    }

    /// Copies held plaintext into `out`, freeing the buffer once all of it is read.
    private func takeHeld(into out: UnsafeMutableRawPointer, count: Int) -> Int {
        guard let held else { return 0 }
        let taken = min(count, heldEnd - heldStart)
        out.copyMemory(from: held + heldStart, byteCount: taken)
        heldStart += taken
        if heldStart == heldEnd { releaseHeld() }
        return taken
    }

    private func heldBuffer() throws(TLSError) -> UnsafeMutableRawPointer {
        if let held { return held }
        guard let buffer = malloc(Self.maximumBodyBytes) else { throw Self.failure("out of memory for a TLS record") }
        held = buffer
        return buffer
    }

    private func releaseHeld() {
        free(held)
        held = nil
        heldStart = 0
        heldEnd = 0
    }

    /// An alert (RFC 8446 section 6): `close_notify` ends the stream; any other fails the connection.
    ///
    /// - Returns: `true` at `close_notify`; `false` for `user_canceled`, which a `close_notify` follows.
    private func receiveAlert(_ content: UnsafePointer<UInt8>, count: Int) throws(TLSError) -> Bool {
        guard count == 2 else { throw Self.failure("a malformed TLS alert") }
        if content[1] == 90 { return false }  // user_canceled: a closure alert, not an error (RFC 8446 section 6.1)
        guard content[1] == 0 else { throw Self.failure("the peer sent TLS alert \(content[1])") }
        isClosedByPeer = true
        return true
    }

    /// Handshake messages after the handshake (RFC 8446 section 4.6): `KeyUpdate`, and on a
    /// client `NewSessionTicket`. A message may arrive over several records.
    private func receiveHandshake(_ content: UnsafePointer<UInt8>, count: Int) throws(TLSError) {
        handshakeBytes.append(contentsOf: UnsafeBufferPointer(start: content, count: count))
        var offset = 0
        while handshakeBytes.count - offset >= 4 {
            let type = handshakeBytes[offset]
            let length = Int(handshakeBytes[offset + 1]) << 16 | Int(handshakeBytes[offset + 2]) << 8 | Int(handshakeBytes[offset + 3])
            guard length <= Self.maximumHandshakeBytes else { throw Self.failure("a post-handshake TLS message over 16 KiB") }
            guard handshakeBytes.count - offset - 4 >= length else { break }
            let body = offset + 4
            offset = body + length
            switch type {
            case 24:  // key_update
                guard length == 1, handshakeBytes[body] <= 1 else { throw Self.failure("a malformed TLS KeyUpdate") }
                // A key change must fall on a record boundary (RFC 8446 section 5.1).
                guard offset == handshakeBytes.count else { throw Self.failure("a TLS KeyUpdate not at the end of its record") }
                try reading.update()
                keyUpdates.received += 1
                // One answer covers every request before it is sent (as OpenSSL answers): a peer
                // that asks again and again while not reading cannot grow the queue.
                if handshakeBytes[body] == 1 && !isAnswerQueued { try answerKeyUpdate() }
            case 4 where !isServer:  // new_session_ticket: not kept
                break
            default:
                throw Self.failure("unexpected TLS handshake message \(type) after the handshake")
            }
        }
        handshakeBytes.removeFirst(offset)
        guard handshakeBytes.count <= Self.maximumHandshakeBytes + 4 else {
            throw Self.failure("a post-handshake TLS message over 16 KiB")
        }
    }

    /// The peer asked for a `KeyUpdate` of ours: it goes before any later record (queued behind
    /// records already sealed), and what this layer seals from now on uses the next key.
    private func answerKeyUpdate() throws(TLSError) {
        let sent = try withUnsafeTemporaryAllocation(byteCount: Self.keyUpdateRecordBytes, alignment: 16) {
            record throws(TLSError) -> Int32 in
            let count = try sealKeyUpdate(into: record.baseAddress.unsafelyUnwrapped)
            return try Self.sendOrQueue(state, record.baseAddress.unsafelyUnwrapped, count: count)
        }
        hasQueuedAnswer = sent == 0
    }

    // MARK: Writing

    /// Seals `first` then `second`, up to `limit` plain bytes, into records in `scratch` (a frame
    /// header shares its record with the payload after it, without a copy), and sends them with
    /// one `send`; what the kernel does not take waits in the socket BIO's queue.
    ///
    /// - Returns: How many bytes were sealed (up to `limit`, fewer when `scratch` fills), and
    ///   whether the kernel took all their records.
    /// - Throws: ``TLSError`` (connection) when OpenSSL or the connection failed, or memory ran out.
    func writeBurst(
        _ first: UnsafeRawBufferPointer, then second: UnsafeRawBufferPointer, limit: Int, scratch: UnsafeMutableRawBufferPointer
    ) throws(TLSError) -> (taken: Int, isSent: Bool) {
        guard let base = scratch.baseAddress else { return (0, true) }
        let total = min(limit, first.count + second.count)
        var taken = 0
        var end = 0
        while taken < total {
            let length = min(total - taken, Self.maximumPlaintextBytes)
            let needsKeyUpdate = writing.sequenceNumber >= recordsPerWriteKey
            let needed = TLSTrafficKey.recordBytes(plaintextBytes: length) + (needsKeyUpdate ? Self.keyUpdateRecordBytes : 0)
            guard scratch.count - end >= needed else { break }
            if needsKeyUpdate { end += try sealKeyUpdate(into: base + end) }
            let fromFirst = min(max(first.count - taken, 0), length)
            let head = fromFirst > 0 ? UnsafeRawBufferPointer(rebasing: first[taken..<(taken + fromFirst)]) : Self.none
            let secondStart = taken + fromFirst - first.count
            let tail =
                length > fromFirst ? UnsafeRawBufferPointer(rebasing: second[secondStart..<(secondStart + length - fromFirst)]) : Self.none
            end += try writing.seal(head, tail, contentType: 23, into: base + end)
            taken += length
        }
        guard end > 0 else { return (0, true) }
        return (taken, try Self.sendOrQueue(state, base, count: end) == 1)
    }

    /// Seals `close_notify` and sends it after the records queued before it.
    ///
    /// - Throws: ``TLSError`` (connection) when OpenSSL or the connection failed (the caller,
    ///   about to close the socket, may ignore it, as it ignores a failed `SSL_shutdown`).
    func sendCloseNotify() throws(TLSError) {
        guard !isCloseNotifySent else { return }
        isCloseNotifySent = true
        let alert: [UInt8] = [1, 0]  // warning, close_notify
        _ = try withUnsafeTemporaryAllocation(byteCount: TLSTrafficKey.recordBytes(plaintextBytes: 2), alignment: 16) {
            record throws(TLSError) -> Int32 in
            let base = record.baseAddress.unsafelyUnwrapped
            let count = try sealShort(alert, contentType: 21, into: base)
            return try Self.sendOrQueue(state, base, count: count)
        }
    }

    /// Seals a `KeyUpdate` (`update_not_requested`) under the current key at `out`, then moves
    /// to the next key.
    ///
    /// - Returns: The record's length, ``keyUpdateRecordBytes``.
    private func sealKeyUpdate(into out: UnsafeMutableRawPointer) throws(TLSError) -> Int {
        let message: [UInt8] = [24, 0, 0, 1, 0]
        let count = try sealShort(message, contentType: 22, into: out)
        try writing.update()
        keyUpdates.sent += 1
        return count
    }

    /// Seals `bytes` as records of `contentType`, 16 KiB each at most, and sends them: tests send
    /// what this library never sends on its own (alerts, handshake messages, padding only).
    ///
    /// - Throws: ``TLSError`` (connection) when OpenSSL or the connection failed.
    func sendForTesting(_ bytes: [UInt8], contentType: UInt8) throws(TLSError) {
        var start = 0
        repeat {
            let chunk = Array(bytes[start..<min(bytes.count, start + Self.maximumPlaintextBytes)])
            start += chunk.count
            _ = try withUnsafeTemporaryAllocation(byteCount: TLSTrafficKey.recordBytes(plaintextBytes: chunk.count), alignment: 16) {
                record throws(TLSError) -> Int32 in
                let base = record.baseAddress.unsafelyUnwrapped
                let count = try sealShort(chunk, contentType: contentType, into: base)
                return try Self.sendOrQueue(state, base, count: count)
            }
        } while start < bytes.count
    }

    /// Seals a few bytes of `contentType` (an alert, a handshake message) into one record at `out`.
    private func sealShort(_ bytes: [UInt8], contentType: UInt8, into out: UnsafeMutableRawPointer) throws(TLSError) -> Int {
        try withUnsafeTemporaryAllocation(byteCount: bytes.count, alignment: 1) { plain throws(TLSError) -> Int in
            plain.copyBytes(from: bytes)
            return try writing.seal(UnsafeRawBufferPointer(plain), Self.none, contentType: contentType, into: out)
        }
    }

    private static var none: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: nil, count: 0) }

    private static func failure(_ reason: String) -> TLSError { TLSError(.connection, reason: reason) }

    /// `tickwire_bio_send_or_queue`: 1 when all was sent, 0 when records wait in the queue.
    ///
    /// - Throws: ``TLSError`` (connection) with `errno`'s reason, read right after the call.
    private static func sendOrQueue(
        _ state: UnsafeMutablePointer<tickwire_bio_state>, _ bytes: UnsafeMutableRawPointer, count: Int
    ) throws(TLSError) -> Int32 {
        let sent = tickwire_bio_send_or_queue(state, bytes.assumingMemoryBound(to: UInt8.self), count)
        guard sent >= 0 else { throw TLSError(.connection, reason: SystemError(call: "send", code: errno).message) }
        return sent
    }
}

@available(*, unavailable)
extension TLSRecordLayer: Sendable {}
