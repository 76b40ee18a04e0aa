extension Message: CustomStringConvertible {
    /// A one-line summary for logs and inspection tools: the type and its fields, with byte
    /// strings shown by size.
    public var description: String {
        switch self {
        case .hello(let hello):
            "hello version \(hello.protocolVersion) schema \(hex64(hello.schemaFingerprint)) room \"\(hello.room)\""
                + " modes 0x\(String(hello.compressionModes.rawValue, radix: 16))" + (hello.offersEntropyDeltas ? " entropy deltas" : "")
                + (hello.offersMotionPrediction ? " motion prediction" : "") + (hello.offersRenderTimes ? " render times" : "")
                + (hello.offersPongHold ? " pong hold" : "") + (hello.offersTextFields ? " text fields" : "")
                + (hello.resumeToken.map { " resume token \($0.count) B" } ?? "")
                + (hello.connectToken.map { " connect token expiring \($0.expireTimestamp)" } ?? "") + " payload \(hello.payload.count) B"
        case .welcome(let welcome):
            "welcome client \(welcome.clientID) rate \(welcome.tickRate) Hz tick \(welcome.currentTick)"
                + " time \(welcome.serverTime) µs compression \(welcome.compression)"
                + (welcome.deltaCoding == .bitPacked ? "" : " \(welcome.deltaCoding) deltas")
                + (welcome.acceptsRenderTimes ? " render times" : "") + (welcome.acceptsPongHold ? " pong hold" : "")
                + " resume token \(welcome.resumeToken.count) B"
        case .reject(let reject):
            "reject \(reject.reason) \"\(reject.text)\""
        case .snapshot(let snapshot):
            "snapshot tick \(snapshot.tick) baseline \(snapshot.baselineTick.map(String.init) ?? "none")"
                + " input \(snapshot.lastProcessedInput) time \(snapshot.serverTime) µs delta \(snapshot.delta.count) B"
        case .input(let input):
            "input ack \(input.ackTick.map(String.init) ?? "none") newest \(input.newestSequence)"
                + " inputs \(input.inputs.count) (\(input.inputs.reduce(0) { $0 + $1.count }) B)"
                + (input.renderTimes?.first.map { " render time \($0)" } ?? "")
        case .ping(let ping):
            "ping client time \(ping.clientTime) µs"
        case .pong(let pong):
            "pong client time \(pong.clientTime) µs server time \(pong.serverTime) µs"
                + (pong.hold.map { " hold \($0) µs" } ?? "")
        case .disconnect(let disconnect):
            "disconnect \(disconnect.reason) \"\(disconnect.text)\""
        case .stats(let stats):
            "stats tick \(stats.tick) p50 \(stats.tickDurationP50) µs p99 \(stats.tickDurationP99) µs"
                + " max \(stats.tickDurationMax) µs CPU \(stats.cpuPerMille)‰ clients \(stats.connectedClients)"
                + " out \(stats.bytesOutPerSecond) B/s"
        case .application(let type, let body):
            "\(type) \(body.count) B"
        }
    }
}

private func hex64(_ value: UInt64) -> String {
    let digits = String(value, radix: 16)
    return "0x" + String(repeating: "0", count: 16 - digits.count) + digits
}
