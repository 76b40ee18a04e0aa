import CommandLineSupport
import Foundation
import TickwireIO

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `tickwire bench ws [--json] [--seconds S] [--rounds R] [--idle N] [--no-python] [--max-steal P]
/// [--sizes 64,1024] [--connections 1,100] [--in-flight 1,16]`: echo throughput and
/// latency of the WebSocket server against two baselines, and its memory per idle connection.
///
/// Three echo servers run as child processes: `tickwire echo --no-compression` (ours), the
/// Python `websockets` echo (`Tools/autobahn/python_echo.py`, with `$TICKWIRE_PYTHON` or
/// `.venv/bin/python`) and `tickwire echo --tcp` (plain TCP, no framing: the loopback limit).
/// One load client (``BenchLoadClient``: one thread, `epoll`, pre-masked frames) loads each with
/// binary messages of 64 B, 1 KiB and 64 KiB over 1 and 100 connections with 1 and 16 messages
/// in flight per connection: `--rounds` rounds (default 5) that alternate the servers, each
/// `--seconds` measured (default 1) after 0.5 s of warm-up on fresh connections; each server's
/// median round is reported, with the spread of our per-round ratios to the TCP echo (each round
/// against the TCP echo of the same round); each round's figures go to standard error as
/// progress. Memory: a fresh server per setting, RSS growth over
/// `--idle` (default 1000) connections that each exchanged one message, with and without
/// permessage-deflate.
/// On a virtual machine the host may take CPU time away ("steal", `/proc/stat`). A round in
/// which it took more than `--max-steal` percent (default 5) while any server was measured is
/// measured again, up to twice `--rounds` extra rounds per case; each case reports how many
/// rounds were dropped and the most steal in a round it kept.
/// `--sizes`, `--connections` and `--in-flight` narrow the cases to a subset, for profiling one.
/// `--tls` runs ``BenchWSTLSCommand`` instead: the `wss://` comparison (its own cases, which
/// `--sizes 64,65536 --connections 10,100 --in-flight 1,16` narrow the same way).
enum BenchWSCommand {
    static let sizes = [64, 1024, 64 * 1024]
    static let connectionCounts = [1, 100]
    static let inFlightCounts = [1, 16]
    static let warmUpSeconds = 0.5

    /// What `tickwire bench ws` accepts, with `--tls` (``BenchWSTLSCommand``) or without; its
    /// usage text and its parser both come from here.
    static let syntax = CommandSyntax(
        name: "tickwire bench ws",
        synopsis: [
            "[--json] [--seconds S] [--rounds R] [--idle N] [--no-python] [--max-steal P] [--sizes …] [--connections …] [--in-flight …]",
            "--tls [--json] [--seconds S] [--rounds R] [--idle N] [--sizes 64,65536] [--connections 10,100] [--in-flight 1,16]",
        ],
        summary: """
            WebSocket echo throughput and latency against Python websockets and plain TCP, and memory per
            idle connection; --tls: our wss:// echo against Python websockets+ssl and our ws:// echo, and the
            wss server's CPU per message against its limit (the ws server's plus two openssl speed cipher passes)
            """,
        options: [
            .flag("json", "machine-readable output"),
            .value("seconds", "S", default: "1", "seconds measured per round, after 0.5 s of warm-up"),
            .value("rounds", "R", default: "5", "rounds per case, 1...20, alternating the servers; the median reported"),
            .value("idle", "N", default: "1000", "idle connections for the memory figure, 10...5000"),
            .flag("no-python", "leave out the Python websockets baseline"),
            .value("max-steal", "P", default: "5", "measure a round again when the host took more than P% of the CPU"),
            .value("sizes", "LIST", default: "64,1024,65536; --tls 64,65536", "only these message sizes in bytes"),
            .value("connections", "LIST", default: "1,100; --tls 10,100", "only these connection counts"),
            .value("in-flight", "LIST", default: "1,16", "only these counts of messages in flight per connection"),
            .flag("tls", "the wss:// comparison instead, CPU µs per message and memory per idle TLS connection"),
        ])

    static func run(_ arguments: CommandArguments) throws {
        var parsed = arguments
        let isTLS = parsed.flag("tls")
        let asJSON = parsed.flag("json")
        let seconds = try parsed.double("seconds", default: 1)
        let roundCount = try parsed.integer("rounds", default: 5)
        let maximumStealPercent = try parsed.double("max-steal", default: 5)
        let idleCount = try parsed.integer("idle", default: 1000)
        let skipsPython = parsed.flag("no-python")
        let chosenSizes = try subset(parsed.string("sizes"), of: isTLS ? [64, 65536] : sizes, option: "sizes")
        let chosenConnections = try subset(parsed.string("connections"), of: isTLS ? [10, 100] : connectionCounts, option: "connections")
        let chosenInFlight = try subset(parsed.string("in-flight"), of: inFlightCounts, option: "in-flight")
        try parsed.rejectUnknown()
        guard seconds > 0 && seconds <= 60 else { throw CommandArguments.UsageError(description: "--seconds wants 0...60") }
        guard (1...20).contains(roundCount) else { throw CommandArguments.UsageError(description: "--rounds wants 1...20") }
        guard (10...5000).contains(idleCount) else { throw CommandArguments.UsageError(description: "--idle wants 10...5000") }
        guard (0...100).contains(maximumStealPercent) else {
            throw CommandArguments.UsageError(description: "--max-steal wants 0...100 (percent)")
        }
        #if DEBUG
        StandardError.write("tickwire: a debug build; measure with `swift run -c release tickwire bench ws`\n")
        #endif
        raiseDescriptorLimit()
        let repository = BenchRepository.find()
        let python = skipsPython ? nil : findPython(repository: repository)
        if !skipsPython && python == nil {
            StandardError.write("tickwire: no Python with websockets ($TICKWIRE_PYTHON or .venv/bin/python); skipping that baseline\n")
        }
        if isTLS {
            try BenchWSTLSCommand.run(
                seconds: seconds, rounds: roundCount, idle: idleCount, python: python, repository: repository, asJSON: asJSON,
                filter: {
                    chosenSizes.contains($0.size) && chosenConnections.contains($0.connections) && chosenInFlight.contains($0.inFlight)
                })
            return
        }
        var kinds: [BenchEchoServerProcess.Kind] = [.tickwire, .tcp]
        if python != nil { kinds.append(.python) }

        let servers = try kinds.map { kind throws(BenchFailure) in
            try BenchEchoServerProcess(kind: kind, python: python, repository: repository)
        }
        defer { for server in servers { server.stop() } }
        var cases: [BenchWSCaseReport] = []
        for size in chosenSizes {
            for connections in chosenConnections {
                for inFlight in chosenInFlight {
                    var report = BenchWSCaseReport(size: size, connections: connections, inFlight: inFlight, results: [])
                    // Rounds alternate the servers, so that a burst of load from elsewhere on the
                    // machine hits all of them alike; each server's median round is reported.
                    // A round measured while the host took CPU time away is measured again.
                    var rounds: [[BenchWSResult]] = Array(repeating: [], count: servers.count)
                    var attempts = 0
                    while rounds[0].count < roundCount {
                        attempts += 1
                        let round = rounds[0].count + 1
                        let results = servers.map { server in
                            let result = measure(server, size: size, connections: connections, inFlight: inFlight, seconds: seconds)
                            progress("\(report.name), \(server.kind.label), round \(round): \(result.summary)")
                            return result
                        }
                        let shares = results.compactMap(\.stealShare)
                        let steal = shares.max() ?? 0
                        if steal * 100 > maximumStealPercent && attempts < roundCount * 3 {
                            report.roundsDroppedForSteal += 1
                            progress(
                                "\(report.name), round \(round) dropped: the host took \(decimalText(steal * 100, places: 0))% of the CPU time; measuring it again"
                            )
                            continue
                        }
                        if !shares.isEmpty { report.highestStealKept = max(report.highestStealKept ?? 0, steal) }
                        for (index, result) in results.enumerated() { rounds[index].append(result) }
                    }
                    report.results = rounds.map(median)
                    if let ours = kinds.firstIndex(of: .tickwire), let tcp = kinds.firstIndex(of: .tcp),
                        let spread = roundRatioSpread(rounds[ours], over: rounds[tcp])
                    {
                        report.results[ours].tcpRatioLowestRound = spread.lowest
                        report.results[ours].tcpRatioHighestRound = spread.highest
                    }
                    cases.append(report)
                }
            }
        }
        for server in servers { server.stop() }
        var memory: [BenchWSMemoryReport] = []
        for compression in [false, true] {
            progress("memory, \(idleCount) idle connections, compression \(compression ? "on" : "off")")
            memory.append(measureIdleMemory(connections: idleCount, compression: compression, repository: repository))
        }
        let report = BenchWSReport(
            secondsPerCase: seconds, rounds: roundCount, maximumStealShare: maximumStealPercent / 100,
            cases: cases, memory: memory)
        try report.print(asJSON: asJSON)
    }

    /// The values of a comma-separated option, each one of `allowed`; all of `allowed` when absent.
    static func subset(_ text: String?, of allowed: [Int], option: String) throws -> [Int] {
        guard let text else { return allowed }
        let values = text.split(separator: ",").map { Int($0.trimmingCharacters(in: .whitespaces)) }
        guard !values.isEmpty, values.allSatisfy({ $0.map(allowed.contains) ?? false }) else {
            throw CommandArguments.UsageError(
                description: "--\(option) wants a comma-separated subset of \(allowed.map(String.init).joined(separator: ","))")
        }
        return values.compactMap { $0 }
    }

    /// The round with the median messages per second (a failed round if every round failed).
    static func median(_ rounds: [BenchWSResult]) -> BenchWSResult {
        let measured = rounds.filter { $0.failure == nil }.sorted { $0.messagesPerSecond < $1.messagesPerSecond }
        guard !measured.isEmpty else { return rounds[0] }
        return measured[measured.count / 2]
    }

    /// The lowest and highest ratio of `ours` to `baseline` among rounds where both were measured,
    /// pairing round by round (the servers alternate within a round).
    static func roundRatioSpread(_ ours: [BenchWSResult], over baseline: [BenchWSResult]) -> (lowest: Double, highest: Double)? {
        let ratios = zip(ours, baseline).compactMap { pair -> Double? in
            guard pair.0.failure == nil, pair.1.failure == nil, pair.1.messagesPerSecond > 0 else { return nil }
            return pair.0.messagesPerSecond / pair.1.messagesPerSecond
        }
        guard let lowest = ratios.min(), let highest = ratios.max() else { return nil }
        return (lowest, highest)
    }

    /// Loads one server with one case on fresh connections; a failure is recorded, not thrown.
    /// - Parameter negotiated: Set to the TLS version and cipher suite the load client negotiated, over TLS.
    static func measure(
        _ server: BenchEchoServerProcess, size: Int, connections: Int, inFlight: Int,
        seconds: Double, tls: TLSClientContext? = nil, negotiated: ((String) -> Void)? = nil
    ) -> BenchWSResult {
        let wire: BenchWire = server.kind == .tcp ? .tcp : .webSocket(offersCompression: false)
        let isTLS = server.kind == .tickwireTLS || server.kind == .pythonTLS
        do throws(BenchFailure) {
            let client = try BenchLoadClient(wire: wire, messageSize: size, inFlight: inFlight, tls: isTLS ? tls : nil)
            defer { client.disconnect() }
            try client.connect(count: connections, port: server.port)
            if let negotiated, let text = client.negotiatedTLS { negotiated(text) }
            let serverCPUBefore = server.cpuSeconds()
            let timesBefore = SystemCPUTimes.current()
            let measurement = try client.run(warmUp: warmUpSeconds, duration: seconds)
            let serverCPU = server.cpuSeconds().flatMap { after in serverCPUBefore.map { after - $0 } }
            var result = BenchWSResult(
                server: server.kind, size: size, measurement: measurement,
                serverCPUSeconds: serverCPU, warmUpSeconds: warmUpSeconds)
            result.stealShare = SystemCPUTimes.current().flatMap { after in timesBefore.flatMap { after.stealShare(since: $0) } }
            return result
        } catch {
            return BenchWSResult(server: server.kind, failure: error.description)
        }
    }

    /// RSS growth of a fresh `tickwire echo` over `connections` connections that each sent one
    /// 64 B message and got its echo, divided by their number.
    static func measureIdleMemory(
        connections: Int, compression: Bool, repository: URL,
        tls: (context: TLSClientContext, chain: String, key: String)? = nil
    ) -> BenchWSMemoryReport {
        var report = BenchWSMemoryReport(connections: connections, compression: compression)
        do {
            let server = try BenchEchoServerProcess(
                kind: tls == nil ? .tickwire : .tickwireTLS, compression: true, repository: repository,
                certificate: tls.map { ($0.chain, $0.key) })
            defer { server.stop() }
            // Warm the server's code paths and allocator with a few connections first.
            let warm = try BenchLoadClient(
                wire: .webSocket(offersCompression: compression), messageSize: 64, inFlight: 1, tls: tls?.context)
            try warm.connect(count: 10, port: server.port)
            try warm.echoOnce(timeout: 10)
            usleep(200_000)  // let the server's loop go idle before reading RSS (a measurement pause, not synchronization)
            guard let before = server.residentBytes() else { throw BenchFailure(description: "cannot read the server's RSS") }
            let idle = try BenchLoadClient(
                wire: .webSocket(offersCompression: compression), messageSize: 64, inFlight: 1, tls: tls?.context)
            defer { idle.disconnect() }
            for _ in 0..<(connections / 100) {
                try idle.connect(count: 100, port: server.port)
            }
            try idle.connect(count: connections % 100, port: server.port)
            try idle.echoOnce(timeout: 20)
            usleep(500_000)
            guard let after = server.residentBytes() else { throw BenchFailure(description: "cannot read the server's RSS") }
            report.serverRSSBefore = before
            report.serverRSSAfter = after
            report.bytesPerConnection = Double(after - before) / Double(connections)
            warm.disconnect()
        } catch {
            report.failure = "\(error)"
        }
        return report
    }

    private static func progress(_ text: String) {
        StandardError.write("bench ws: \(text)\n")
    }

    /// Raises the soft descriptor limit to the hard one, for the idle-connection count (the
    /// servers, started afterwards, inherit it).
    private static func raiseDescriptorLimit() {
        var limit = rlimit()
        #if canImport(Glibc)
        let resource = __rlimit_resource_t(RLIMIT_NOFILE.rawValue)
        #else
        let resource = RLIMIT_NOFILE
        #endif
        guard getrlimit(resource, &limit) == 0 else { return }
        limit.rlim_cur = limit.rlim_max
        _ = setrlimit(resource, &limit)
    }

    private static func findPython(repository: URL) -> String? {
        let candidates: [String?] = [
            ProcessInfo.processInfo.environment["TICKWIRE_PYTHON"], repository.appendingPathComponent(".venv/bin/python").path,
        ]
        return candidates.compactMap { $0 }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}
