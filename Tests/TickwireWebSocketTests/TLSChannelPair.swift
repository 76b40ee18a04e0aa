import Dispatch
import Testing
import TickwireCodec
import TickwireFoundation
@_spi(LoopThread) import TickwireIO

/// A TLS server channel and a client channel on one loop, for the TLS channel and record layer
/// tests (loop thread only).
final class TLSChannelPair {
    var listener: Listener?
    var server: TCPChannel?
    var client: TCPChannel?
    var serverTLS: TLSSession?
    var clientTLS: TLSSession?
    /// The client's socket, for bytes written past TLS.
    var clientDescriptor: Int32 = -1
    var serverReceived: [UInt8] = []
    var clientReceived: [UInt8] = []
    var serverReadCalls = 0
    var clientWritableEvents = 0
    var serverClosed = false
    var clientClosed = false
}

/// How ``startTLSChannelPair(loop:options:)`` sets a pair up.
struct TLSChannelPairOptions {
    /// Each side's records after the handshake: the record layer's (`true`) or OpenSSL's.
    var serverSealsOwnRecords = true
    var clientSealsOwnRecords = true
    /// Both sides' records per key, when lowered.
    var recordsPerWriteKey: UInt64?
    /// The server writes back what it reads.
    var echo = false
    /// The server does not read (backpressure).
    var pausesServerReads = false
    /// Written by the client before its handshake completes (they wait in its buffer).
    var clientWritesFirst: [UInt8] = []
    /// Returns once both handshakes are complete (at most 10 s).
    var waitsForHandshakes = true
}

/// Starts a listener on 127.0.0.1 and a client channel connected to it, both over TLS with the
/// test certificates.
func startTLSChannelPair(loop: EventLoop, options: TLSChannelPairOptions) throws -> LoopBound<TLSChannelPair?> {
    let certificates = try TestCertificates.get()
    let serverContext = try TLSServerContext(certificateChainFile: certificates.server.chain, privateKeyFile: certificates.server.key)
    let clientContext = try TLSClientContext(configuration: TLSClientConfiguration(caFile: certificates.caFile))
    let pair = LoopBound<TLSChannelPair?>(nil)
    let started = loop.runAndWait { () -> Bool in
        let state = TLSChannelPair()
        pair.value = state
        guard let address = SocketAddress(numericHost: "127.0.0.1", port: 0),
            let listener = try? Listener(
                address: address, loop: loop,
                onAccept: { socket, peer in
                    guard let tls = try? TLSSession.server(context: serverContext, descriptor: socket.descriptor),
                        let channel = try? TCPChannel(socket: socket, peer: peer, loop: loop, tls: tls)
                    else { return }
                    tls.sealsOwnRecords = options.serverSealsOwnRecords
                    if let records = options.recordsPerWriteKey { tls.recordsPerWriteKey = records }
                    channel.isReadPaused = options.pausesServerReads
                    channel.onRead = { [weak channel] bytes in
                        state.serverReadCalls += 1
                        state.serverReceived.append(contentsOf: bytes)
                        if options.echo { channel?.write(bytes) }
                    }
                    channel.onClose = { _ in state.serverClosed = true }
                    state.server = channel
                    state.serverTLS = tls
                })
        else { return false }
        state.listener = listener
        guard let socket = try? Socket(family: .ipv4), let isConnected = try? socket.connect(to: listener.address),
            let tls = try? TLSSession.client(context: clientContext, descriptor: socket.descriptor, host: "127.0.0.1")
        else { return false }
        tls.sealsOwnRecords = options.clientSealsOwnRecords
        if let records = options.recordsPerWriteKey { tls.recordsPerWriteKey = records }
        state.clientDescriptor = socket.descriptor
        guard let client = try? TCPChannel(socket: socket, peer: listener.address, loop: loop, isConnecting: !isConnected, tls: tls)
        else { return false }
        if !isConnected { client.onConnect = { _ in } }
        client.onRead = { bytes in state.clientReceived.append(contentsOf: bytes) }
        client.onClose = { _ in state.clientClosed = true }
        client.onWritable = { state.clientWritableEvents += 1 }
        if !options.clientWritesFirst.isEmpty { options.clientWritesFirst.withUnsafeBytes { client.write($0) } }
        state.client = client
        state.clientTLS = tls
        return true
    }
    #expect(started == true, "the listener and both channels should start")
    guard options.waitsForHandshakes else { return pair }
    let deadline = DispatchTime.now() + .seconds(10)
    while DispatchTime.now() < deadline,
        loop.runAndWait({ pair.value?.client?.isTLSHandshaking != false || pair.value?.server?.isTLSHandshaking != false }) != false
    {}
    return pair
}

/// Waits (at most `seconds`) until `condition` holds on the loop thread.
func waitOnLoop(
    _ loop: EventLoop, for pair: LoopBound<TLSChannelPair?>, seconds: Int = 20,
    until condition: @escaping @Sendable (TLSChannelPair) -> Bool
) -> Bool {
    let deadline = DispatchTime.now() + .seconds(seconds)
    while DispatchTime.now() < deadline {
        if loop.runAndWait({ pair.value.map(condition) ?? false }) == true { return true }
    }
    return false
}

/// Closes both channels and the listener.
func stopTLSChannelPair(_ loop: EventLoop, _ pair: LoopBound<TLSChannelPair?>) {
    _ = loop.runAndWait { () -> Void in
        pair.value?.client?.close()
        pair.value?.server?.close()
        pair.value?.listener?.close()
        pair.value = nil
    }
}

/// Seals each of `records` as records of `contentType` through one side's record layer (the
/// client's, or the server's with `fromServer`), then writes `after` on that side's channel.
///
/// - Returns: Whether every record was sealed and sent.
func sendRecords(
    _ loop: EventLoop, _ pair: LoopBound<TLSChannelPair?>, _ records: [[UInt8]], contentType: UInt8, fromServer: Bool = false,
    then after: [UInt8] = []
) -> Bool {
    loop.runAndWait { () -> Bool in
        guard let value = pair.value, let tls = fromServer ? value.serverTLS : value.clientTLS else { return false }
        for record in records {
            guard (try? tls.sendRecordsForTesting(record, contentType: contentType)) == true else { return false }
        }
        if !after.isEmpty { after.withUnsafeBytes { (fromServer ? value.server : value.client)?.write($0) } }
        return true
    } == true
}

/// Expects one side (the server's, or the client's with `onClient`) to close its connection
/// with a TLS failure whose reason names `reason`.
func expectTLSFailure(
    _ loop: EventLoop, _ pair: LoopBound<TLSChannelPair?>, onClient: Bool = false, naming reason: String,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    let side = onClient ? "client" : "server"
    #expect(
        waitOnLoop(loop, for: pair) { onClient ? $0.clientClosed : $0.serverClosed }, "the \(side) should close the connection",
        sourceLocation: sourceLocation)
    let failure = loop.runAndWait { (onClient ? pair.value?.client : pair.value?.server)?.tlsFailure } ?? nil
    #expect(
        failure?.reason.contains(reason) == true, "the \(side)'s TLS failure should name '\(reason)': \(String(describing: failure))",
        sourceLocation: sourceLocation)
}
