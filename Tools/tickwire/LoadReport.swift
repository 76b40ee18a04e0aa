import ArenaGame
import CommandLineSupport
import TickwireCodec

/// What a `tickwire load` run measured, as text or JSON.
struct LoadReport: Sendable {
    var clients: Int
    /// How many rooms the clients were spread over.
    var rooms = 1
    /// What the clients spoke: `websocket` or `udp` (netcode.io with the packet layer).
    var transport = "websocket"
    var duration: Double
    var ramp: Double
    /// The local addresses the clients left from (`--source-addresses`), or `nil` for the kernel's choice.
    var sourceAddresses: SourceAddressList?
    var connected = 0
    var failed = 0
    var connectedAtEnd = 0
    var disconnects = 0
    var reconnects = 0
    /// Redirects to another process of a fleet followed (reject reason redirect).
    var redirects = 0
    /// Moved disconnects followed (a fleet process draining or losing a room).
    var moves = 0
    /// Why connected clients were disconnected, with counts.
    var disconnectReasons: [String: Int] = [:]
    /// Why attempts to join failed: refused hellos by reason, failed connections by kind.
    var outcomes = ConnectionOutcomes()
    var snapshots = 0
    var snapshotsAtStart = 0
    var measuredSeconds = 0.0
    /// Snapshot ages at arrival (seconds), over the measured window.
    var ages: [Double] = []
    /// Per-second averages of bytes received per connected client, over the measured window.
    var bytesPerClientSamples: [Double] = []
    /// The server's stats messages, one per second of the measured window.
    var serverSamples: [Message.Stats] = []
    /// This process's CPU use over the measured window, in cores.
    var loadCPUShare = 0.0
    /// Through a matchmaker (`--matchmaker`): its seats, rooms and capacities; `nil` otherwise.
    var matchmaker: MatchmakerLoadFigures?

    /// Adds one driver thread's figures (its server samples are kept only when this report has none).
    mutating func merge(_ other: LoadReport) {
        connected += other.connected
        failed += other.failed
        connectedAtEnd += other.connectedAtEnd
        disconnects += other.disconnects
        reconnects += other.reconnects
        redirects += other.redirects
        moves += other.moves
        for (reason, count) in other.disconnectReasons { disconnectReasons[reason, default: 0] += count }
        outcomes.merge(other.outcomes)
        snapshots += other.snapshots
        snapshotsAtStart += other.snapshotsAtStart
        ages += other.ages
        if serverSamples.isEmpty { serverSamples = other.serverSamples }
        if bytesPerClientSamples.isEmpty { bytesPerClientSamples = other.bytesPerClientSamples }
        if let figures = other.matchmaker { matchmaker = (matchmaker ?? MatchmakerLoadFigures()).merging(figures) }
    }

    /// The nearest-rank percentile of `values` (0 when empty).
    static func percentile(_ values: [Double], _ fraction: Double) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let rank = Int((fraction * Double(sorted.count)).rounded(.up))
        return sorted[max(0, min(sorted.count - 1, rank - 1))]
    }

    var bytesPerClientPerSecond: Double {
        bytesPerClientSamples.isEmpty ? 0 : bytesPerClientSamples.reduce(0, +) / Double(bytesPerClientSamples.count)
    }
    /// The worst server tick p99 reported during the window, ms.
    var serverTickP99Worst: Double { Double(serverSamples.map(\.tickDurationP99).max() ?? 0) / 1000 }
    /// The median of the server's reported tick p99 during the window, ms.
    var serverTickP99Median: Double { Self.percentile(serverSamples.map { Double($0.tickDurationP99) / 1000 }, 0.5) }
    /// The longest server tick reported, ms.
    var serverTickMax: Double { Double(serverSamples.map(\.tickDurationMax).max() ?? 0) / 1000 }
    /// The server's mean CPU share during the window, in cores.
    var serverCPU: Double {
        serverSamples.isEmpty ? 0 : serverSamples.map { Double($0.cpuPerMille) / 1000 }.reduce(0, +) / Double(serverSamples.count)
    }
    var snapshotsPerClientPerSecond: Double {
        connected == 0 || measuredSeconds <= 0 ? 0 : Double(snapshots - snapshotsAtStart) / Double(connected) / measuredSeconds
    }

    func text() -> String {
        let ms = { (value: Double) in decimalText(value * 1000, places: 1) }
        let hint = outcomes.hint(clients: clients, rooms: rooms).map { "\n" + $0 } ?? ""
        return """
            transport: \(transport == "udp" ? "UDP (netcode.io 1.02, a guest token per connection)" : "WebSocket")
            clients: \(connected) connected, \(failed) failed, \(connectedAtEnd) connected at the end; \(disconnects) disconnects, \(reconnects) reconnects, \(redirects) redirects and \(moves) moves followed
            source addresses: \(sourceAddressesText)
            matchmaker: \(matchmaker?.text ?? "none (the URLs were given)")
            refused before the hello (attempts): \(outcomes.explainedText)
            refused by the server (attempts): \(outcomes.refusalsText)
            connection failures (attempts): \(outcomes.failuresText)
            gave up after refusals (players): \(outcomes.gaveUp) (after \(outcomes.refusedRetries) retries each, --refused-retries)
            disconnect reasons: \(disconnectReasons.isEmpty ? "none" : disconnectReasons.sorted { $0.value > $1.value }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))
            snapshots: \(snapshots) received, \(decimalText(snapshotsPerClientPerSecond, places: 1)) per client per second in the window
            bytes in: \(Int(bytesPerClientPerSecond)) B/s per client
            snapshot age at arrival: p50 \(ms(Self.percentile(ages, 0.5))) ms, p99 \(ms(Self.percentile(ages, 0.99))) ms (\(ages.count) samples)
            server (its stats messages): tick p99 worst \(decimalText(serverTickP99Worst, places: 2)) ms, median \(decimalText(serverTickP99Median, places: 2)) ms, max tick \(decimalText(serverTickMax, places: 2)) ms, CPU \(decimalText(serverCPU * 100, places: 0))% of a core
            load generator CPU: \(decimalText(loadCPUShare * 100, places: 0))% of a core\(hint)
            """
    }

    /// `127.0.0.2…127.0.0.14 (13 addresses), at most 16 clients each`, or the kernel's choice.
    var sourceAddressesText: String {
        sourceAddresses.map { "\($0), at most \($0.clientsPerAddress(clients: clients)) clients each" }
            ?? "the kernel's choice (one address for every client)"
    }

    /// `{"count":13,"first":"127.0.0.2","last":"127.0.0.14","clientsPerAddress":16}`, or `null`.
    var sourceAddressesJSON: String {
        guard let sources = sourceAddresses, let first = sources.addresses.first, let last = sources.addresses.last else { return "null" }
        return "{\"count\":\(sources.addresses.count),\"first\":\(ConnectionOutcomes.jsonString(first)),"
            + "\"last\":\(ConnectionOutcomes.jsonString(last)),\"clientsPerAddress\":\(sources.clientsPerAddress(clients: clients))}"
    }

    /// The disconnect reasons as a JSON object, most first: `{"timed out: nothing heard for 5.0 seconds":12}`.
    var disconnectReasonsJSON: String {
        let sorted = disconnectReasons.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }
        return "{" + sorted.map { "\(ConnectionOutcomes.jsonString($0.key)):\($0.value)" }.joined(separator: ",") + "}"
    }

    func json() -> String {
        func number(_ value: Double) -> String { decimalText(value, places: 3) }
        return """
            {"transport":"\(transport)","clients":\(clients),"duration":\(number(duration)),"ramp":\(number(ramp)),"connected":\(connected),"failed":\(failed),\
            "sourceAddresses":\(sourceAddressesJSON),"matchmaker":\(matchmaker?.json ?? "null"),\
            \(outcomes.jsonMembers(clients: clients, rooms: rooms)),\
            "connectedAtEnd":\(connectedAtEnd),"disconnects":\(disconnects),"disconnectReasons":\(disconnectReasonsJSON),"reconnects":\(reconnects),"redirects":\(redirects),"moves":\(moves),"snapshotsReceived":\(snapshots),\
            "snapshotsPerClientPerSecond":\(number(snapshotsPerClientPerSecond)),"bytesPerClientPerSecond":\(number(bytesPerClientPerSecond)),\
            "snapshotAgeP50Ms":\(number(Self.percentile(ages, 0.5) * 1000)),"snapshotAgeP99Ms":\(number(Self.percentile(ages, 0.99) * 1000)),\
            "serverTickP99WorstMs":\(number(serverTickP99Worst)),"serverTickP99MedianMs":\(number(serverTickP99Median)),\
            "serverTickMaxMs":\(number(serverTickMax)),"serverCPUCores":\(number(serverCPU)),"loadCPUCores":\(number(loadCPUShare))}
            """
    }
}
