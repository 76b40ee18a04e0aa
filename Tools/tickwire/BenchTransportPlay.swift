import ArenaGame
import CommandLineSupport
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One transport played in one cell of `tickwire bench transport`: a fresh lab, `arena serve`
/// in namespace b, a scripted headless `arena join … --dump` in namespace a, the relay's
/// counters around the play, and the lab down again.
struct BenchTransportPlay {
    /// The arena executable.
    let arena: String
    /// The loss lab's command.
    let lab: String
    /// Why `udp` cannot be played, when it cannot.
    let udpUnavailable: String?
    let tickRate: Int
    /// Seconds the client plays.
    let duration: Double
    /// Seconds after the first snapshot left out.
    let warmUp: Double
    /// The server's port in namespace b.
    let port: Int
    /// The lab's seed.
    let seed: UInt64

    /// The script the client plays, long enough for `frames` ticks: moves in every direction and fire.
    static func script(frames: Int) -> String {
        let cycle = "d15 s15 a15 w15 f5 _5"
        return Array(repeating: cycle, count: frames / 70 + 1).joined(separator: " ")
    }

    /// Plays `transport` through a lab of `loss` percent and `rtt` ms, or through the client's
    /// impairment model of them.
    ///
    /// - Parameters:
    ///   - transport: `ws` or `udp`.
    ///   - loss: Loss each way, percent.
    ///   - rtt: The round trip added, ms.
    ///   - modelled: Whether the client's own impairment model (`arena join --lag RTT/2 --loss
    ///     LOSS`) makes the bad network, over a lab that adds nothing; the result's transport is
    ///     then ``TransportBenchResult/modelName(of:)``.
    /// - Returns: The figures, or why the transport is not available.
    /// - Throws: ``BenchFailure`` when the lab, the server or the client fails, or the dump yields no figures.
    func measure(transport: String, loss: Double, rtt: Double, modelled: Bool = false) throws(BenchFailure) -> TransportBenchResult {
        let name = modelled ? TransportBenchResult.modelName(of: transport) : transport
        if transport == "udp", let udpUnavailable { return TransportBenchResult(transport: name, unavailable: udpUnavailable) }
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-bench-transport-\(getpid())-\(transport)")
        do { try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true) } catch {
            throw BenchFailure(description: "cannot create \(scratch.path): \(error)")
        }
        defer {
            do { try FileManager.default.removeItem(at: scratch) } catch {
                StandardError.write("tickwire: could not remove \(scratch.path): \(error)\n")
            }
        }
        let lab = try BenchTransportLab(command: lab, rtt: modelled ? 0 : rtt, loss: modelled ? 0 : loss, seed: seed, scratch: scratch)
        defer { lab.down() }
        let host = lab.addresses.b
        var serve = [
            arena, "serve", "--host", host, "--port", "\(port)", "--tick", "\(tickRate)", "--bots", "2", "--status-interval", "600",
        ]
        // UDP on the same port number as the WebSocket's TCP; the guest token comes from that TCP port's HTTP.
        if transport == "udp" { serve += ["--udp-port", "\(port)"] }
        let server = try lab.start("arena serve", side: "b", serve)
        defer { server.stop() }
        try server.waitForOutput(containing: "arena server on", seconds: 30)
        let frames = Int(duration * Double(tickRate))
        let url = "\(transport)://\(host):\(port)/main"
        let before = try lab.counters()
        let started = Date()
        let client = try lab.start(
            "arena join", side: "a",
            [
                arena, "join", url, "--name", "bench", "--script", Self.script(frames: frames), "--frames", "\(frames)", "--dump",
                "--width", "40", "--height", "12",
            ] + (transport == "udp" ? ["--token-port", "\(port)"] : [])
                + (modelled ? ["--lag", decimalText(rtt / 2, places: 1), "--loss", decimalText(loss, places: 2)] : []))
        defer { client.stop() }
        guard client.wait(seconds: duration + 60) else {
            throw BenchFailure(
                description:
                    "arena join over \(transport) did not finish \(frames) frames within \(Int(duration + 60)) s: \(try client.tail())")
        }
        let seconds = Date().timeIntervalSince(started)
        let after = try lab.counters()
        guard client.status == 0 else {
            throw BenchFailure(description: "arena join over \(transport) exited with status \(client.status ?? -1): \(try client.tail())")
        }
        let dumped: [TransportDumpFrame]
        let figures: TransportFigures
        do {
            dumped = try TransportDump.frames(in: try client.text())
            figures = try TransportFigures(frames: dumped, warmUp: warmUp)
        } catch let error as TransportDumpError {
            throw BenchFailure(description: "the \(transport) client's dump: \(error)")
        } catch let error as TransportFiguresError {
            throw BenchFailure(description: "the \(transport) client's figures: \(error)")
        } catch let error as BenchFailure {
            throw error
        } catch {
            throw BenchFailure(description: "the \(transport) client's dump: \(error)")
        }
        if let said = dumped.last?.transport, said != transport {
            throw BenchFailure(description: "the client asked to play over \(transport) says it plays over \(said)")
        }
        var result = TransportBenchResult(transport: name, figures: figures)
        result.wireBytesDownPerSecond = Double(after.down.bytesIn - before.down.bytesIn) / seconds
        result.wireBytesUpPerSecond = Double(after.up.bytesIn - before.up.bytesIn) / seconds
        result.droppedDown = after.down.dropped - before.down.dropped
        result.droppedUp = after.up.dropped - before.up.dropped
        return result
    }
}
