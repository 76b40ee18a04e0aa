import CommandLineSupport
import Dispatch
import TickwireIO
import TickwireWebSocket

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tickwire echo [--port P] [--host H] [--tcp] [--no-compression] [--max-message-bytes N]
/// [--tls-cert CHAIN --tls-key KEY] [--max-connections-per-address N] [--max-handshakes-per-address N]
/// [--write-timeout S] [--output-budget-bytes N]`: an echo server for conformance suites
/// (Autobahn's fuzzingclient), interop tests and benchmarks.
///
/// Every client of a benchmark comes from 127.0.0.1, so the per-address limits are off by
/// default (0); the write timeout (10 s) and the output budget (256 MiB) are the library's.
///
/// Echoes every text and binary message as received, with permessage-deflate offered to clients
/// that ask for it. `--tcp` runs the plain TCP echo instead (the benchmark baseline). Prints
/// `listening on ws://HOST:PORT/` (or `wss://` with `--tls-cert`/`--tls-key`, or `tcp://`) on
/// standard output once bound; runs until
/// SIGINT or SIGTERM, then closes every connection with 1001 and exits 0.
enum EchoCommand {
    /// What `tickwire echo` accepts; its usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire echo",
        synopsis: ["[options]"],
        summary: """
            a WebSocket echo server (permessage-deflate on) for Autobahn, interop tests and benchmarks;
            prints `listening on ws://HOST:PORT/` once bound and runs until SIGINT or SIGTERM
            """,
        options: [
            .value("port", "P", default: "9001", "the port to listen on (0: any free one)"),
            .value("host", "H", default: "127.0.0.1", "the address to listen on"),
            .flag("tcp", "a plain TCP echo instead (the benchmarks' baseline)"),
            .flag("no-compression", "do not offer permessage-deflate"),
            .value("max-message-bytes", "N", default: "\(64 << 20)", "the largest frame and message accepted"),
            .value("tls-cert", "CHAIN.pem", "serve wss:// (TLS 1.2/1.3) with this certificate chain (with --tls-key)"),
            .value("tls-key", "KEY.pem", "the private key for --tls-cert"),
            .value(
                "max-connections-per-address", "N", default: "0",
                "connections from one address (0: no limit; bench clients share 127.0.0.1)"),
            .value("max-handshakes-per-address", "N", default: "0", "handshakes under way from one address (0: no limit)"),
            .value("write-timeout", "S", default: "10", "close a client whose sends stay backed up this long (0: never)"),
            .value(
                "output-budget-bytes", "N", default: "\(WebSocketServerConfiguration().outputBudgetBytes)",
                "unsent bytes all connections together may hold"),
        ])

    static func run(_ arguments: CommandArguments) throws {
        var parsed = arguments
        let port = try parsed.integer("port", default: 9001)
        let host = parsed.string("host") ?? "127.0.0.1"
        let isTCP = parsed.flag("tcp")
        let isCompressed = !parsed.flag("no-compression")
        let maximumMessageBytes = try parsed.integer("max-message-bytes", default: 64 << 20)
        let certificateFile = parsed.string("tls-cert"), keyFile = parsed.string("tls-key")
        let perAddress = try parsed.integer("max-connections-per-address", default: 0)
        let handshakesPerAddress = try parsed.integer("max-handshakes-per-address", default: 0)
        let writeTimeout = try parsed.double("write-timeout", default: 10)
        let outputBudget = try parsed.integer("output-budget-bytes", default: WebSocketServerConfiguration().outputBudgetBytes)
        guard perAddress >= 0, handshakesPerAddress >= 0, writeTimeout >= 0, outputBudget > 0 else {
            throw CommandArguments.UsageError(description: "limits must be 0 (none) or more; --output-budget-bytes more than 0")
        }
        try parsed.rejectUnknown()
        guard (certificateFile == nil) == (keyFile == nil) else {
            throw CommandArguments.UsageError(description: "--tls-cert and --tls-key go together")
        }
        guard (0...65535).contains(port) else { throw CommandArguments.UsageError(description: "--port must be 0...65535") }

        let stop = StopSignal()
        if isTCP {
            let server = try TCPEchoServer()
            let address = try server.start(host: host, port: port)
            announce("tcp", address)
            stop.wait()
            server.stop()
            return
        }

        var configuration = WebSocketServerConfiguration(host: host, port: port)
        if isCompressed { configuration.compression = PerMessageDeflateConfiguration() }
        configuration.protocolConfiguration = WebSocketConfiguration(
            limits: WebSocketLimits(
                maximumFramePayloadBytes: maximumMessageBytes, maximumMessageBytes: maximumMessageBytes))
        // An echo answers what it reads: stop reading at 1 MiB of unsent echo, so a client that
        // never reads cannot grow memory, but never drop an echo of a large message.
        configuration.sendBuffer = SendBufferLimits(
            highWaterMark: 1 << 20, hardLimit: max(4 * maximumMessageBytes, 64 << 20), pauseReadingThreshold: 1 << 20)
        configuration.maximumHandshakeBytes = 16 * 1024
        if let certificateFile, let keyFile {
            configuration.tls = try TLSServerContext(certificateChainFile: certificateFile, privateKeyFile: keyFile)
        }
        configuration.maximumConnectionsPerAddress = perAddress == 0 ? .max : perAddress
        configuration.maximumHandshakesPerAddress = handshakesPerAddress == 0 ? .max : handshakesPerAddress
        configuration.writeTimeout = writeTimeout > 0 ? .milliseconds(Int64(writeTimeout * 1000)) : nil
        configuration.outputBudgetBytes = outputBudget
        let server = try WebSocketServer(configuration: configuration) { event in
            if case .message(let connection, let message) = event { connection.send(message) }
        }
        let address = try server.start()
        announce(configuration.tls == nil ? "ws" : "wss", address)
        stop.wait()
        server.shutdown(timeout: .seconds(2))
    }

    private static func announce(_ scheme: String, _ address: SocketAddress) {
        print("listening on \(scheme)://\(address)/")
        fflush(nil)  // all streams: `stdout` itself is a global var Swift 6 will not touch
    }
}

/// Waits for SIGINT or SIGTERM (through Dispatch signal sources, with the default actions off).
final class StopSignal {
    private let stopped = DispatchSemaphore(value: 0)
    private let sources: [any DispatchSourceSignal]

    init() {
        let stopped = self.stopped
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stopped.signal() }
            source.resume()
            return source
        }
    }

    /// Blocks until a stop signal arrives.
    func wait() {
        stopped.wait()
    }
}
