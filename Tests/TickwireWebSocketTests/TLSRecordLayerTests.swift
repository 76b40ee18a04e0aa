import Dispatch
import Testing
import TickwireFoundation
@_spi(LoopThread) import TickwireIO

#if canImport(Glibc)
import Glibc
#endif

@Suite("TLS 1.3 records sealed and opened by TLSRecordLayer")
struct TLSRecordLayerTests {
    @Test(
        "the record layer and OpenSSL read each other's records, both ways, from 1 B to 200 KiB",
        arguments: [(true, true), (true, false), (false, true)])
    func pairings(serverSealsOwnRecords: Bool, clientSealsOwnRecords: Bool) throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let pair = try startTLSChannelPair(
            loop: loop,
            options: TLSChannelPairOptions(
                serverSealsOwnRecords: serverSealsOwnRecords, clientSealsOwnRecords: clientSealsOwnRecords, echo: true))
        defer { stopTLSChannelPair(loop, pair) }
        let layers = loop.runAndWait { (pair.value?.serverTLS?.isRecordLayerActive, pair.value?.clientTLS?.isRecordLayerActive) }
        #expect(
            layers?.0 == serverSealsOwnRecords && layers?.1 == clientSealsOwnRecords, "who seals the records: \(String(describing: layers))"
        )
        var random = SplitMix64(seed: 1303)
        let sent = [1, 100, 16_383, 16_384, 16_385, 65_546, 200_000].flatMap { randomBytes($0, using: &random) }
        _ = loop.runAndWait { sent.withUnsafeBytes { pair.value?.client?.write($0) } }
        let echoed = waitOnLoop(loop, for: pair) { $0.clientReceived.count >= sent.count }
        let received = loop.runAndWait { (pair.value?.serverReceived ?? [], pair.value?.clientReceived ?? []) }
        #expect(echoed, "the echo should come back (\(received?.1.count ?? 0) of \(sent.count) bytes)")
        #expect(received?.0 == sent && received?.1 == sent, "both directions should carry the bytes unchanged and in order")
    }

    @Test(
        "every few records the record layer sends a KeyUpdate and moves to the next key; OpenSSL's peer follows", arguments: [true, false])
    func ownKeyUpdates(serverIsRecordLayer: Bool) throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let options = TLSChannelPairOptions(
            serverSealsOwnRecords: serverIsRecordLayer, clientSealsOwnRecords: !serverIsRecordLayer, recordsPerWriteKey: 3, echo: true)
        let pair = try startTLSChannelPair(loop: loop, options: options)
        defer { stopTLSChannelPair(loop, pair) }
        var random = SplitMix64(seed: 24)
        let sent = randomBytes(300_000, using: &random)
        _ = loop.runAndWait { sent.withUnsafeBytes { pair.value?.client?.write($0) } }
        let echoed = waitOnLoop(loop, for: pair) { $0.clientReceived.count >= sent.count }
        #expect(
            echoed && loop.runAndWait({ pair.value?.clientReceived }) == sent,
            "300 000 bytes over many key updates should come back unchanged")
        let updates =
            loop.runAndWait { (serverIsRecordLayer ? pair.value?.serverTLS : pair.value?.clientTLS)?.recordLayerKeyUpdates } ?? nil
        // 300 000 bytes are at least 19 records: a key update after every third.
        #expect(
            (updates?.sent ?? 0) >= 6, "the record layer should have moved to a new key every 3 records: \(String(describing: updates))")
    }

    @Test("a KeyUpdate an OpenSSL peer asks for is followed and answered, and the echo after it still reads")
    func answeredKeyUpdate() throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let pair = try startTLSChannelPair(
            loop: loop, options: TLSChannelPairOptions(serverSealsOwnRecords: true, clientSealsOwnRecords: false, echo: true))
        defer { stopTLSChannelPair(loop, pair) }
        #expect(loop.runAndWait { pair.value?.clientTLS?.requestKeyUpdate() } == true, "OpenSSL should take the request")
        let sent = Array("after the key update".utf8)
        _ = loop.runAndWait { sent.withUnsafeBytes { pair.value?.client?.write($0) } }
        let echoed = waitOnLoop(loop, for: pair) { $0.clientReceived.count >= sent.count }
        #expect(echoed && loop.runAndWait({ pair.value?.clientReceived }) == sent, "the echo should come back under the new keys")
        let updates = loop.runAndWait { pair.value?.serverTLS?.recordLayerKeyUpdates } ?? nil
        #expect(
            updates?.received == 1 && updates?.sent == 1, "one KeyUpdate received and one sent in answer: \(String(describing: updates))")
    }

    @Test(
        "a record that breaks RFC 8446 fails the connection with a reason: forged, at the length limit, past it, of another type",
        arguments: [
            ([23, 3, 3, 0, 40] + [UInt8](repeating: 7, count: 40), "bad record mac"),
            ([23, 3, 3, 0x41, 0x00] + [UInt8](repeating: 7, count: 16_640), "bad record mac"),  // 2^14 + 256: the most allowed
            ([23, 3, 3, 0x41, 0x01] + [UInt8](repeating: 7, count: 16_641), "record overflow"),
            ([22, 3, 3, 0, 40] + [UInt8](repeating: 7, count: 40), "unexpected TLS record type 22"),
            ([23, 3, 1, 0, 40] + [UInt8](repeating: 7, count: 40), "wrong TLS record version"),
            ([23, 3, 3, 0, 16] + [UInt8](repeating: 7, count: 16), "too short"),
        ])
    func brokenRecords(bytes: [UInt8], reason: String) throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let pair = try startTLSChannelPair(loop: loop, options: TLSChannelPairOptions())
        defer { stopTLSChannelPair(loop, pair) }
        let descriptor = (loop.runAndWait { pair.value?.clientDescriptor } ?? nil) ?? -1
        let written = bytes.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        #expect(written == bytes.count, "the raw record should be written past TLS")
        expectTLSFailure(loop, pair, naming: reason)
        #expect(loop.runAndWait { pair.value?.serverReceived.isEmpty } == true, "no byte of a broken record is read")
    }

    @Test(
        "sealed records the server must refuse: an alert other than close_notify, a NewSessionTicket from a client, padding with no content type",
        arguments: [
            ([2, 40], UInt8(21), "the peer sent TLS alert 40"),
            ([4, 0, 0, 4, 0, 0, 0, 0], UInt8(22), "unexpected TLS handshake message 4"),
            ([24, 0, 0, 1, 2], UInt8(22), "a malformed TLS KeyUpdate"),
            ([24, 0, 0, 1, 0, 24], UInt8(22), "not at the end of its record"),
            ([0, 0, 0], UInt8(0), "no content type"),
        ])
    func refusedContent(bytes: [UInt8], contentType: UInt8, reason: String) throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let pair = try startTLSChannelPair(loop: loop, options: TLSChannelPairOptions())
        defer { stopTLSChannelPair(loop, pair) }
        // Content type 0 seals the bytes with a zero type byte after them: a record of padding only.
        #expect(sendRecords(loop, pair, [bytes], contentType: contentType), "the client's record layer should seal and send the record")
        expectTLSFailure(loop, pair, naming: reason)
    }

    @Test(
        "a client skips a NewSessionTicket of 16 KiB over two records, and refuses one byte more (the post-handshake message limit)",
        arguments: [16_384, 16_385])
    func sessionTicketLimit(bodyBytes: Int) throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let pair = try startTLSChannelPair(loop: loop, options: TLSChannelPairOptions())
        defer { stopTLSChannelPair(loop, pair) }
        let ticket: [UInt8] =
            [4, UInt8(bodyBytes >> 16), UInt8((bodyBytes >> 8) & 0xFF), UInt8(bodyBytes & 0xFF)] + [UInt8](repeating: 9, count: bodyBytes)
        let after = Array("after the ticket".utf8)
        #expect(
            sendRecords(loop, pair, [ticket], contentType: 22, fromServer: true, then: after),
            "the server's record layer should seal and send the ticket")
        if bodyBytes <= 16_384 {
            #expect(waitOnLoop(loop, for: pair) { $0.clientReceived.count >= after.count }, "the bytes after the ticket should arrive")
            #expect(loop.runAndWait { pair.value?.clientReceived } == after, "the ticket is skipped, the bytes after it read")
        } else {
            expectTLSFailure(loop, pair, onClient: true, naming: "over 16 KiB")
        }
    }

    @Test(
        "before application data: user_canceled is no failure; part of a handshake message is, as RFC 8446 section 5.1 says",
        arguments: [([UInt8]([1, 90]), UInt8(21), nil), ([24, 0, 0], UInt8(22), "inside a fragmented handshake message")])
    func beforeApplicationData(bytes: [UInt8], contentType: UInt8, reason: String?) throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let pair = try startTLSChannelPair(loop: loop, options: TLSChannelPairOptions())
        defer { stopTLSChannelPair(loop, pair) }
        let after = Array("after".utf8)
        #expect(
            sendRecords(loop, pair, [bytes], contentType: contentType, then: after),
            "the client's record layer should seal and send the records")
        if let reason {
            expectTLSFailure(loop, pair, naming: reason)
        } else {
            #expect(waitOnLoop(loop, for: pair) { $0.serverReceived.count >= after.count }, "the bytes after the alert should arrive")
            #expect(loop.runAndWait { pair.value?.serverClosed } == false, "user_canceled alone does not close")
        }
    }

    @Test(
        "32 records in a row without application data are read, and the bytes after them; one more fails the connection",
        arguments: [32, 33])
    func emptyRecords(count: Int) throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let pair = try startTLSChannelPair(loop: loop, options: TLSChannelPairOptions())
        defer { stopTLSChannelPair(loop, pair) }
        let after = Array("after the empty records".utf8)
        #expect(
            sendRecords(loop, pair, Array(repeating: [], count: count), contentType: 23, then: after),
            "the client's record layer should seal and send \(count) empty records")
        if count <= 32 {
            #expect(
                waitOnLoop(loop, for: pair) { $0.serverReceived.count >= after.count }, "the bytes after the empty records should arrive")
            #expect(loop.runAndWait { pair.value?.serverReceived } == after)
        } else {
            expectTLSFailure(loop, pair, naming: "more than 32 TLS records in a row")
        }
    }

    @Test(
        "close_notify sealed by the record layer ends the OpenSSL peer's stream cleanly, and the other way round", arguments: [true, false])
    func closeNotify(serverIsRecordLayer: Bool) throws {
        let loop = try EventLoop()
        try loop.start()
        defer { loop.stop() }
        let pair = try startTLSChannelPair(
            loop: loop,
            options: TLSChannelPairOptions(serverSealsOwnRecords: serverIsRecordLayer, clientSealsOwnRecords: !serverIsRecordLayer))
        defer { stopTLSChannelPair(loop, pair) }
        _ = loop.runAndWait { pair.value?.client?.closeAfterFlush() }  // close_notify, then the end of the stream
        #expect(waitOnLoop(loop, for: pair) { $0.serverClosed }, "the server should see the end of the stream")
        let failure = loop.runAndWait { pair.value?.server?.tlsFailure } ?? nil
        #expect(failure == nil, "close_notify is a clean end, not a failure: \(String(describing: failure))")
    }
}
