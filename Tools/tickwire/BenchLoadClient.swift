import ArenaGame
import TickwireFoundation
import TickwireIO
import TickwireWebSocket
import TickwireZlib

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What the benchmark's load client speaks on its connections.
enum BenchWire: Equatable {
    /// WebSocket: an upgrade handshake, then masked binary frames out and unmasked frames back.
    case webSocket(offersCompression: Bool)
    /// Plain TCP: `size` raw bytes out, `size` bytes back make one message.
    case tcp
}

/// Why a benchmark case could not be run or measured.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
}

/// What one load case measured over its measurement window.
struct LoadMeasurement {
    /// Echoes completed inside the window.
    var messages = 0
    /// The window's wall-clock length.
    var seconds = 0.0
    /// Send-to-echo times of the messages completed in the window, in nanoseconds.
    var latencies: [UInt64] = []
    /// The load client's user + system CPU time in the window.
    var clientCPUSeconds = 0.0
}

/// The benchmark's load client: one thread, the event loop's readiness poller (`epoll` on Linux)
/// over non-blocking sockets, frames built and masked once before the run, echoes parsed only as
/// far as frame boundaries, and its kernel copies placed clear of the `rep movsb` cliff
/// (`CopyPlacement`).
///
/// It is deliberately minimal so that it costs the machine far less than the server it loads;
/// the command reports its CPU share so a reader can check that it was not the bottleneck.
/// Not thread-safe; used by one thread.
final class BenchLoadClient {
    /// One connection's counters and parser state.
    ///
    /// Its mutable members, and the client's, have unchecked exclusivity: the client is one
    /// thread, no access overlaps another, and the dynamic checks took 7% of the client's time,
    /// time taken from the server under test on a two-core machine.
    final class Connection {
        let descriptor: Int32
        /// The TLS session over `descriptor`, for `bench ws --tls`.
        var tls: TLSSession?
        /// Send times of the messages in flight, oldest first (a ring of `capacity`).
        @exclusivity(unchecked) var sendTimes: [UInt64]
        @exclusivity(unchecked) var sendHead = 0
        @exclusivity(unchecked) var sendCount = 0
        /// Whole frames queued and not yet fully written, and the bytes of the first already written.
        @exclusivity(unchecked) var pendingFrames = 0
        @exclusivity(unchecked) var writeOffset = 0
        /// Whether the poller watches for writability (only while a send left frames behind).
        @exclusivity(unchecked) var isWatchingWrites = false
        /// WebSocket frame parser: header bytes so far, then the payload bytes still to skip.
        @exclusivity(unchecked) var header = [UInt8](repeating: 0, count: 14)
        @exclusivity(unchecked) var headerCount = 0
        @exclusivity(unchecked) var payloadRemaining = 0
        @exclusivity(unchecked) var frameOpcode: UInt8 = 0
        @exclusivity(unchecked) var frameIsFinal = false
        @exclusivity(unchecked) var messageBytes = 0
        /// TCP: bytes received towards the current echo.
        @exclusivity(unchecked) var tcpReceived = 0
        /// Bytes received since the handshake, the size of the last read, and where the next
        /// read goes in the buffer (see `CopyPlacement`).
        @exclusivity(unchecked) var receivedBytes = 0
        @exclusivity(unchecked) var lastReadCount = 0
        @exclusivity(unchecked) var readPlacement = CopyPlacement()
        /// Bytes sent since the handshake, and which copy of the frames the next send comes from.
        @exclusivity(unchecked) var sentBytes = 0
        @exclusivity(unchecked) var sendPlacement = CopyPlacement()

        init(descriptor: Int32, capacity: Int) {
            self.descriptor = descriptor
            sendTimes = [UInt64](repeating: 0, count: max(1, capacity))
        }

        deinit { _ = close(descriptor) }
    }

    let wire: BenchWire
    /// The client context when connecting over TLS (`bench ws --tls`), else `nil`.
    let tls: TLSClientContext?
    let messageSize: Int
    let inFlight: Int
    private let frame: [UInt8]
    /// `frame` repeated, for sends of every queued frame at once (see ``BenchSendStream``).
    private let stream: BenchSendStream
    @exclusivity(unchecked) private var connections: [Connection] = []
    /// The connections by descriptor, for the poller's reports.
    @exclusivity(unchecked) private var connectionsByDescriptor: [Connection?] = []
    /// Readiness for every connection: `epoll` where there is one, so that a wake-up costs by what
    /// is ready rather than by how many connections there are (`poll(2)` over 100 sockets took a
    /// fifth of this client's time, time taken from the server under test).
    private let poller: Poller
    @exclusivity(unchecked) private var events: [PollEvent] = []
    @exclusivity(unchecked) private var readBuffer = [UInt8](repeating: 0, count: 256 * 1024)
    @exclusivity(unchecked) private var isMeasuring = false
    /// Whether each echo is answered with the next message (off for ``echoOnce(timeout:)``).
    @exclusivity(unchecked) private var keepsSending = true
    @exclusivity(unchecked) private var measurement = LoadMeasurement()
    @exclusivity(unchecked) private var failure: String?
    /// The TLS version and cipher suite of the first TLS connection (`TLSv1.3 TLS_AES_128_GCM_SHA256`), for the report.
    private(set) var negotiatedTLS: String?

    /// Prepares a client; no connection is made yet.
    ///
    /// - Parameters:
    ///   - wire: WebSocket or plain TCP.
    ///   - messageSize: The payload size of every message.
    ///   - inFlight: Messages kept outstanding on each connection.
    /// - Throws: ``BenchFailure`` when the readiness poller cannot be created.
    init(wire: BenchWire, messageSize: Int, inFlight: Int, tls: TLSClientContext? = nil) throws(BenchFailure) {
        self.wire = wire
        self.tls = tls
        self.messageSize = messageSize
        self.inFlight = max(1, inFlight)
        var random: UInt64 = 0x9E37_79B9_7F4A_7C15
        let payload = (0..<messageSize).map { _ -> UInt8 in
            random = random &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407  // LCG, wraps by design
            return UInt8(truncatingIfNeeded: random >> 56)
        }
        switch wire {
        case .tcp: frame = payload
        case .webSocket(offersCompression: false): frame = Self.maskedBinaryFrame(payload, key: [0x37, 0xFA, 0x21, 0x3D])
        case .webSocket(offersCompression: true):
            // Compressed as a fresh permessage-deflate context sends a first message (the same
            // bytes on every connection), so that the server's inflater is exercised too.
            frame = Self.maskedBinaryFrame(Self.deflated(payload), key: [0x37, 0xFA, 0x21, 0x3D], rsv1: true)
        }
        stream = BenchSendStream(frame: frame, inFlight: self.inFlight)
        do {
            poller = try Poller()
        } catch {
            throw BenchFailure(description: "the readiness poller could not be created: \(error)")
        }
    }

    /// A final binary frame carrying `payload`, masked with `key` (RFC 6455 section 5.2).
    static func maskedBinaryFrame(_ payload: [UInt8], key: [UInt8], rsv1: Bool = false) -> [UInt8] {
        var bytes: [UInt8] = [rsv1 ? 0xC2 : 0x82]
        if payload.count < 126 {
            bytes.append(0x80 | UInt8(payload.count))
        } else if payload.count <= 0xFFFF {
            bytes += [0x80 | 126, UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        } else {
            bytes.append(0x80 | 127)
            bytes += (0..<8).reversed().map { UInt8(truncatingIfNeeded: UInt64(payload.count) >> (8 * $0)) }
        }
        bytes += key
        bytes += payload.enumerated().map { $0.element ^ key[$0.offset & 3] }
        return bytes
    }

    /// `payload` as permessage-deflate sends it: raw deflate, sync flush, the 00 00 FF FF tail removed.
    static func deflated(_ payload: [UInt8]) -> [UInt8] {
        guard let deflater = try? Deflater(format: .raw) else { return payload }
        var output: [UInt8] = []
        payload.withUnsafeBytes { deflater.compress($0, flush: .sync, appendingTo: &output) }
        return output.count >= 4 ? Array(output.dropLast(4)) : output
    }

    /// Opens `count` connections to `127.0.0.1:port` (with the upgrade handshake for WebSocket).
    ///
    /// - Throws: ``BenchFailure`` when a connection or handshake fails.
    func connect(count: Int, port: Int) throws(BenchFailure) {
        for _ in 0..<count {
            let connection = try Self.openConnection(port: port, wire: wire, capacity: inFlight, tls: tls)
            connections.append(connection)
            if negotiatedTLS == nil, let session = connection.tls {
                negotiatedTLS = session.protocolVersion + " " + (session.cipherSuite ?? "unknown cipher")
            }
            let index = Int(connection.descriptor)
            if connectionsByDescriptor.count <= index {
                connectionsByDescriptor += [Connection?](repeating: nil, count: index + 1 - connectionsByDescriptor.count)
            }
            connectionsByDescriptor[index] = connection
            do {
                try poller.add(connection.descriptor, interest: .read)
            } catch {
                throw BenchFailure(description: "watching a connection failed: \(error)")
            }
        }
    }

    /// Closes every connection (without a close handshake: the servers see the TCP close).
    func disconnect() {
        for connection in connections { poller.remove(connection.descriptor) }
        connectionsByDescriptor.removeAll()
        connections.removeAll()
    }

    /// Runs the load: `warmUp` seconds unmeasured, then `duration` seconds measured.
    ///
    /// - Returns: What the window measured.
    /// - Throws: ``BenchFailure`` when a connection fails or an echo comes back wrong.
    func run(warmUp: Double, duration: Double) throws(BenchFailure) -> LoadMeasurement {
        let start = MonotonicTime.now()
        for connection in connections {
            for _ in 0..<inFlight { queueMessage(on: connection, at: start) }
            flush(connection)
            watchWrites(of: connection)
        }
        let measureStart = start + UInt64(warmUp * 1e9)
        let end = measureStart + UInt64(duration * 1e9)
        var cpuAtStart = 0.0
        while failure == nil {
            let now = MonotonicTime.now()
            if !isMeasuring && now >= measureStart {
                isMeasuring = true
                cpuAtStart = Self.processCPUSeconds()
            }
            if now >= end { break }
            try serveReadyConnections(timeoutMilliseconds: 50)
        }
        if let failure { throw BenchFailure(description: failure) }
        measurement.seconds = Double(MonotonicTime.now() - measureStart) / 1e9
        measurement.clientCPUSeconds = Self.processCPUSeconds() - cpuAtStart
        return measurement
    }

    /// Waits at most `timeoutMilliseconds` for ready connections, then reads what each has,
    /// sends what each owes, and watches for writability only where a send left frames behind.
    private func serveReadyConnections(timeoutMilliseconds: Int32) throws(BenchFailure) {
        do {
            try poller.wait(timeoutMilliseconds: timeoutMilliseconds, into: &events)
        } catch {
            throw BenchFailure(description: "waiting for readiness failed: \(error)")
        }
        guard !events.isEmpty else { return }
        let readTime = MonotonicTime.now()
        for event in events {
            guard Int(event.descriptor) < connectionsByDescriptor.count,
                let connection = connectionsByDescriptor[Int(event.descriptor)]
            else { continue }
            if event.isReadable || event.isHangup { receive(on: connection, at: readTime) }
            if connection.pendingFrames > 0 { flush(connection) }
            watchWrites(of: connection)
        }
    }

    /// Watches `connection` for writability exactly while a send has left frames behind.
    private func watchWrites(of connection: Connection) {
        let wantsWrites = connection.pendingFrames > 0
        guard wantsWrites != connection.isWatchingWrites else { return }
        connection.isWatchingWrites = wantsWrites
        do {
            try poller.modify(connection.descriptor, interest: wantsWrites ? [.read, .write] : .read)
        } catch {
            failure = "watching a connection for writability failed: \(error)"
        }
    }

    private func queueMessage(on connection: Connection, at time: UInt64) {
        connection.sendTimes[(connection.sendHead + connection.sendCount) % connection.sendTimes.count] = time
        connection.sendCount += 1
        connection.pendingFrames += 1
    }

    private func completeMessage(on connection: Connection, at time: UInt64) {
        guard connection.sendCount > 0 else {
            failure = "an echo arrived with no message in flight"
            return
        }
        let sent = connection.sendTimes[connection.sendHead]
        connection.sendHead = (connection.sendHead + 1) % connection.sendTimes.count
        connection.sendCount -= 1
        if isMeasuring {
            measurement.messages += 1
            measurement.latencies.append(time - sent)
        }
        if keepsSending { queueMessage(on: connection, at: time) }
    }

    /// Sends one message on every connection and waits for every echo, so that each
    /// connection has exercised its read, write (and compression) paths once.
    ///
    /// - Parameter timeout: The longest wait in seconds.
    /// - Throws: ``BenchFailure`` when an echo is missing after `timeout` or a connection fails.
    func echoOnce(timeout: Double) throws(BenchFailure) {
        keepsSending = false
        defer { keepsSending = true }
        let start = MonotonicTime.now()
        for connection in connections {
            queueMessage(on: connection, at: start)
            flush(connection)
            watchWrites(of: connection)
        }
        while failure == nil && connections.contains(where: { $0.sendCount > 0 }) {
            guard MonotonicTime.now() - start < UInt64(timeout * 1e9) else {
                throw BenchFailure(description: "echoes missing after \(timeout) s")
            }
            try serveReadyConnections(timeoutMilliseconds: 50)
        }
        if let failure { throw BenchFailure(description: failure) }
    }

    /// Sends the queued frames from the stream copy `CopyPlacement` chooses; only sends large
    /// enough to be timed read the clock.
    private func flush(_ connection: Connection) {
        let frameLength = frame.count
        while connection.pendingFrames > 0 && failure == nil {
            let position = connection.sentBytes
            let length = min(connection.pendingFrames * frameLength - connection.writeOffset, stream.contiguousBytes(from: position))
            let source = stream.address(of: position, shift: connection.sendPlacement.nextShift())
            let isTimed = length >= CopyPlacement.timedBytes
            let start = isTimed ? MonotonicTime.now() : 0
            let written: Int
            if let session = connection.tls {
                // Every record but the burst's last goes with MSG_MORE, as the server's channel sends them.
                let moreFollows = connection.pendingFrames * frameLength - connection.writeOffset > TLSLibrary.maximumRecordBytes
                let result = Result { () throws(TLSError) in
                    try session.write(from: UnsafeRawBufferPointer(start: source, count: length), moreFollows: moreFollows)
                }
                switch result {
                case .success(let count?): written = count
                case .success(nil): return  // would block: writability brings us back
                case .failure(let error):
                    failure = "\(error)"
                    return
                }
            } else {
                written = send(connection.descriptor, source, length, Int32(MSG_NOSIGNAL))
            }
            if written < 0 {
                if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { failure = "send failed, errno \(errno)" }
                return
            }
            if isTimed { connection.sendPlacement.record(nanoseconds: MonotonicTime.now() - start, bytes: written) }
            connection.sentBytes += written
            let consumed = connection.writeOffset + written
            connection.pendingFrames -= consumed / frameLength
            connection.writeOffset = consumed % frameLength
            if written < length && connection.tls == nil { return }  // TLS: one record per call, go on
        }
    }

    /// Reads at the stream position modulo 64 plus the shift `CopyPlacement` chooses; only reads
    /// that follow a large one read the clock, so small-message cases do not pay for it.
    private func receive(on connection: Connection, at time: UInt64) {
        let offset = (connection.receivedBytes + connection.readPlacement.nextShift()) & 63
        let isTimed = connection.lastReadCount >= CopyPlacement.timedBytes
        let count = readBuffer.withUnsafeMutableBytes { buffer in
            let start = isTimed ? MonotonicTime.now() : 0
            let count: Int
            if let session = connection.tls {
                do {
                    count = try session.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[offset..<buffer.count - 64])) ?? -1
                    if count < 0 { errno = EAGAIN }
                } catch {
                    count = -1
                    errno = EPROTO
                }
            } else {
                count = recv(connection.descriptor, buffer.baseAddress.map { $0 + offset }, buffer.count - 64, 0)
            }
            if isTimed && count > 0 { connection.readPlacement.record(nanoseconds: MonotonicTime.now() - start, bytes: count) }
            return count
        }
        if count == 0 {
            failure = "the server closed a connection"
            return
        }
        if count < 0 {
            if errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR { failure = "recv failed, errno \(errno)" }
            return
        }
        connection.receivedBytes += count
        connection.lastReadCount = count
        if wire == .tcp {
            connection.tcpReceived += count
            while connection.tcpReceived >= messageSize && failure == nil {
                connection.tcpReceived -= messageSize
                completeMessage(on: connection, at: time)
            }
            return
        }
        readBuffer.withUnsafeBufferPointer { parse($0[offset..<offset + count], on: connection, at: time) }
        // Decrypted bytes OpenSSL holds announce no readiness: read them now.
        if let session = connection.tls, session.hasPendingBytes, failure == nil { receive(on: connection, at: time) }
    }

    /// Walks server frames to their boundaries: a header read in place when it is all there (else
    /// gathered byte by byte across reads), payloads skipped whole.
    private func parse(_ bytes: Slice<UnsafeBufferPointer<UInt8>>, on connection: Connection, at time: UInt64) {
        var index = bytes.startIndex
        while index < bytes.endIndex && failure == nil {
            if connection.payloadRemaining > 0 {
                let take = min(connection.payloadRemaining, bytes.endIndex - index)
                connection.payloadRemaining -= take
                index += take
                if connection.payloadRemaining == 0 { finishFrame(on: connection, at: time) }
                continue
            }
            if connection.headerCount == 0 && bytes.endIndex - index >= 2 {
                let needed = Self.headerLength(second: bytes[index + 1])
                if bytes.endIndex - index >= needed {
                    let length = Self.payloadLength(second: bytes[index + 1]) { bytes[index + 2 + $0] }
                    index += needed
                    beginFrame(first: bytes[index - needed], length: length, on: connection, at: time)
                    continue
                }
            }
            connection.header[connection.headerCount] = bytes[index]
            connection.headerCount += 1
            index += 1
            guard connection.headerCount >= 2,
                connection.headerCount == Self.headerLength(second: connection.header[1])
            else { continue }
            let length = Self.payloadLength(second: connection.header[1]) { connection.header[2 + $0] }
            connection.headerCount = 0
            beginFrame(first: connection.header[0], length: length, on: connection, at: time)
        }
    }

    /// A frame header's length in bytes, from its second byte (RFC 6455 section 5.2).
    private static func headerLength(second: UInt8) -> Int {
        let shortLength = second & 0x7F
        let extra = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
        return 2 + extra + (second & 0x80 != 0 ? 4 : 0)
    }

    /// A frame's payload length, from its second byte and the extended length bytes after it.
    private static func payloadLength(second: UInt8, extendedByte: (Int) -> UInt8) -> Int {
        let shortLength = Int(second & 0x7F)
        let extra = shortLength == 126 ? 2 : shortLength == 127 ? 8 : 0
        guard extra > 0 else { return shortLength }
        var length = 0
        for position in 0..<extra { length = length << 8 | Int(extendedByte(position)) }
        return length
    }

    private func beginFrame(first: UInt8, length: Int, on connection: Connection, at time: UInt64) {
        connection.frameOpcode = first & 0x0F
        connection.frameIsFinal = first & 0x80 != 0
        connection.payloadRemaining = length
        if connection.frameOpcode <= 2 { connection.messageBytes += length }
        if length == 0 { finishFrame(on: connection, at: time) }
    }

    private func finishFrame(on connection: Connection, at time: UInt64) {
        switch connection.frameOpcode {
        case 0, 1, 2:
            guard connection.frameIsFinal else { return }
            // Compressed echoes (RSV1) are shorter; only an uncompressed echo must match the size.
            if wire == .webSocket(offersCompression: false) && connection.messageBytes != messageSize {
                failure = "an echo of \(messageSize) bytes came back with \(connection.messageBytes)"
            }
            connection.messageBytes = 0
            completeMessage(on: connection, at: time)
        case 8: failure = "the server sent a close frame"
        default: break  // ping or pong: the servers under test do not ping within a case
        }
    }

    // MARK: - Connections

    private static func openConnection(port: Int, wire: BenchWire, capacity: Int, tls: TLSClientContext?) throws(BenchFailure) -> Connection
    {
        #if canImport(Glibc)
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw BenchFailure(description: "socket() failed, errno \(errno)") }
        let connection = Connection(descriptor: descriptor, capacity: capacity)
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let status = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard status == 0 else { throw BenchFailure(description: "connect to 127.0.0.1:\(port) failed, errno \(errno)") }
        var one: Int32 = 1
        setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        if let tls {
            do {
                let session = try TLSSession.client(context: tls, descriptor: descriptor, host: "127.0.0.1")
                // Blocking (5 s timeouts): one call finishes the handshake or fails.
                guard try session.handshake() else { throw BenchFailure(description: "the TLS handshake did not finish") }
                connection.tls = session
            } catch let failure as BenchFailure {
                throw failure
            } catch {
                throw BenchFailure(description: "TLS handshake failed: \(error)")
            }
        }
        if case .webSocket(let offersCompression) = wire {
            try handshake(on: connection, port: port, offersCompression: offersCompression)
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return connection
    }

    /// Sends an upgrade request and reads the response head byte by byte (so no frame byte is
    /// consumed with it); blocking, bounded by the socket's 5 s timeouts.
    private static func handshake(on connection: Connection, port: Int, offersCompression: Bool) throws(BenchFailure) {
        let descriptor = connection.descriptor
        var request =
            "GET / HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
        if offersCompression { request += "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n" }
        request += "\r\n"
        let bytes = Array(request.utf8)
        let sent = bytes.withUnsafeBytes { raw in
            connection.tls.map { (try? $0.write(from: raw)).flatMap { $0 } ?? -1 }
                ?? send(descriptor, raw.baseAddress, raw.count, Int32(MSG_NOSIGNAL))
        }
        guard sent == bytes.count else { throw BenchFailure(description: "sending the upgrade request failed, errno \(errno)") }
        var head: [UInt8] = []
        var byte: UInt8 = 0
        while head.count < 16384 && !(head.count >= 4 && head.suffix(4) == [13, 10, 13, 10]) {
            let received = withUnsafeMutableBytes(of: &byte) { raw in
                connection.tls.map { (try? $0.read(into: raw)).flatMap { $0 } ?? -1 } ?? recv(descriptor, raw.baseAddress, 1, 0)
            }
            guard received == 1 else {
                throw BenchFailure(description: "the upgrade response did not arrive (errno \(errno))")
            }
            head.append(byte)
        }
        let text = String(decoding: head, as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 101") else { throw refusal(head: head, on: connection) }
    }

    /// The failure for a refused upgrade: the status, what it means, the limit the server named
    /// and the flag that changes it (``RefusalExplanation``), from the head and up to
    /// ``WebSocketRefusal/maximumBodyBytes`` of the body (read within the socket's 5 s timeouts).
    private static func refusal(head bytes: [UInt8], on connection: Connection) -> BenchFailure {
        let parsed: HTTPResponseHead
        do {
            guard let (head, _) = try HTTPResponseHead.parse(bytes) else {
                return BenchFailure(description: "the upgrade was refused with an incomplete head")
            }
            parsed = head
        } catch {
            return BenchFailure(description: "the upgrade was refused with a malformed head: \(error)")
        }
        let declared = parsed.headers["Content-Length"].flatMap { Int($0) } ?? WebSocketRefusal.maximumBodyBytes
        var body = [UInt8](repeating: 0, count: max(0, min(declared, WebSocketRefusal.maximumBodyBytes)))
        var received = 0
        var readFailure = ""
        reading: while received < body.count {
            let result = body.withUnsafeMutableBytes { raw -> Result<Int, TLSError> in
                let rest = UnsafeMutableRawBufferPointer(rebasing: raw[received...])
                guard let session = connection.tls else { return .success(recv(connection.descriptor, rest.baseAddress, rest.count, 0)) }
                return Result { () throws(TLSError) in try session.read(into: rest) ?? 0 }
            }
            switch result {
            case .success(let count) where count > 0: received += count
            case .success: break reading  // closed or timed out after its words: use what came
            case .failure(let error):
                readFailure = "; its body could not be read: \(error)"
                break reading
            }
        }
        let refusal = WebSocketRefusal(head: parsed, body: body.prefix(received))
        return BenchFailure(description: "the upgrade was refused: \(RefusalExplanation(refusal: refusal)) (\(refusal))\(readFailure)")
    }

    // MARK: - Clocks

    /// This process's user + system CPU seconds so far (`getrusage(RUSAGE_SELF)`).
    static func processCPUSeconds() -> Double {
        var usage = rusage()
        #if canImport(Glibc)
        getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
        #else
        getrusage(RUSAGE_SELF, &usage)
        #endif
        return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
            + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
    }
}
