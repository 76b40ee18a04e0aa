import CommandLineSupport
import Foundation
import Synchronization

/// One loss lab (`Tools/losslab/lab`) for `tickwire bench transport`: up with an impairment,
/// commands run in its namespaces, its relay's counters, and down.
///
/// The lab is started with `--owner-pid` of this process, so the relay takes it down by itself
/// if this process dies; ``down()`` (also run by `deinit`) takes it down at once, and
/// ``BenchTransportLab/takeDownOnSignals()`` does on SIGINT and SIGTERM.
final class BenchTransportLab {
    /// The relay's byte and drop counters, one direction.
    struct Counters {
        /// IP bytes the relay took in.
        var bytesIn: Int
        /// Packets it dropped.
        var dropped: Int
    }

    /// The lab's name, `twbench-PID`.
    let name: String
    /// The side a (client) and side b (server) addresses.
    let addresses: (a: String, b: String)
    private let command: String
    private let scratch: URL
    private var isUp = true

    /// The lab up now and the play's scratch directory, for the signal handler.
    private static let current = Mutex<(command: String, name: String, scratch: URL)?>(nil)

    /// Brings a lab up: `lab up --name NAME --rtt RTT --loss LOSS --seed SEED --owner-pid PID`.
    ///
    /// - Throws: ``BenchFailure`` when `lab up` fails (not root, no `/dev/net/tun`, …) or prints no addresses.
    init(command: String, rtt: Double, loss: Double, seed: UInt64, scratch: URL) throws(BenchFailure) {
        self.command = command
        self.scratch = scratch
        let name = "twbench-\(getpid())"
        self.name = name
        let up = try Self.run(
            command,
            ["up", "--name", name, "--replace", "--rtt", "\(rtt)", "--loss", "\(loss)", "--seed", "\(seed)", "--owner-pid", "\(getpid())"],
            scratch: scratch, seconds: 60)
        Self.current.withLock { $0 = (command, name, scratch) }
        let object: [String: Any]?
        do { object = try Self.json(up, of: "lab up") } catch {
            Self.takeDown(command: command, name: name, scratch: scratch)
            throw error
        }
        guard let found = object?["addresses"] as? [String: Any], let a = found["a"] as? String, let b = found["b"] as? String else {
            Self.takeDown(command: command, name: name, scratch: scratch)
            throw BenchFailure(description: "`lab up` printed no addresses: \(up.prefix(400))")
        }
        addresses = (a, b)
    }

    deinit { down() }

    /// Starts `arguments` in namespace `side` (`lab exec --name NAME --side SIDE -- …`).
    ///
    /// - Throws: ``BenchFailure`` when it cannot start.
    func start(_ label: String, side: String, _ arguments: [String]) throws(BenchFailure) -> BenchTransportProcess {
        try BenchTransportProcess(
            label, executable: command, arguments: ["exec", "--name", name, "--side", side, "--"] + arguments,
            output: scratch.appendingPathComponent("\(label.replacingOccurrences(of: " ", with: "-")).out"))
    }

    /// The relay's counters now, down (b→a) and up (a→b).
    ///
    /// - Throws: ``BenchFailure`` when `lab stats` fails or prints no counters.
    func counters() throws(BenchFailure) -> (down: Counters, up: Counters) {
        let text = try Self.run(command, ["stats", "--name", name], scratch: scratch, seconds: 20)
        guard let object = try Self.json(text, of: "lab stats"),
            let counters = object["counters"] as? [String: Any], let down = counters["b_to_a"] as? [String: Any],
            let up = counters["a_to_b"] as? [String: Any], let downBytes = down["bytes_in"] as? Int,
            let downDropped = down["dropped"] as? Int, let upBytes = up["bytes_in"] as? Int, let upDropped = up["dropped"] as? Int
        else { throw BenchFailure(description: "`lab stats` printed no bytes_in and dropped counters: \(text.prefix(400))") }
        return (Counters(bytesIn: downBytes, dropped: downDropped), Counters(bytesIn: upBytes, dropped: upDropped))
    }

    /// Takes the lab down (`lab down`), stopping everything that runs in its namespaces.
    func down() {
        guard isUp else { return }
        isUp = false
        Self.takeDown(command: command, name: name, scratch: scratch)
    }

    /// `lab down --name NAME`, after which the signal handler has no lab to take down; a failure is
    /// said on standard error (the relay still takes the lab down when this process exits).
    private static func takeDown(command: String, name: String, scratch: URL) {
        current.withLock { $0 = nil }
        do { _ = try run(command, ["down", "--name", name], scratch: scratch, seconds: 30) } catch {
            StandardError.write(
                "tickwire: taking the lab \(name) down failed (its relay takes it down when this process exits): \(error)\n")
        }
    }

    /// On SIGINT or SIGTERM, takes the lab up now down, removes the play's scratch directory and
    /// exits with 128 + the signal.
    ///
    /// - Returns: The signal sources; keep them for as long as the handlers should stay.
    static func takeDownOnSignals() -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                if let (command, name, scratch) = current.withLock({ $0 }) {
                    StandardError.write("tickwire: signal \(number): taking the lab \(name) down\n")
                    let down = Process()
                    down.executableURL = URL(fileURLWithPath: command)
                    down.arguments = ["down", "--name", name]
                    down.standardOutput = FileHandle.nullDevice  // its final counters; the report is what this command prints
                    do {
                        try down.run()
                        down.waitUntilExit()
                    } catch {
                        StandardError.write(
                            "tickwire: `lab down` failed (the relay takes the lab down when this process exits): \(error)\n")
                    }
                    // exit() runs no defer: the play's outputs are removed here.
                    do { try FileManager.default.removeItem(at: scratch) } catch {
                        StandardError.write("tickwire: could not remove \(scratch.path): \(error)\n")
                    }
                }
                exit(128 + number)
            }
            source.resume()
            return source
        }
    }

    /// The JSON object `text` holds, or `nil` when it holds another JSON value.
    ///
    /// - Throws: ``BenchFailure`` when `text` is no JSON, saying which command printed it.
    private static func json(_ text: String, of command: String) throws(BenchFailure) -> [String: Any]? {
        do { return try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] } catch {
            throw BenchFailure(description: "`\(command)` printed no JSON (\(error)): \(text.prefix(400))")
        }
    }

    /// Runs `lab ARGUMENTS` to its end (at most `seconds`); returns what it printed.
    private static func run(_ command: String, _ arguments: [String], scratch: URL, seconds: Double) throws(BenchFailure) -> String {
        let process = try BenchTransportProcess(
            "lab \(arguments[0])", executable: command, arguments: arguments,
            output: scratch.appendingPathComponent("lab-\(arguments[0]).out"))
        guard process.wait(seconds: seconds) else {
            process.stop()
            throw BenchFailure(description: "`lab \(arguments.joined(separator: " "))` did not finish within \(Int(seconds)) s")
        }
        let text = try process.text()
        guard process.status == 0 else {
            throw BenchFailure(
                description: "`lab \(arguments.joined(separator: " "))` failed (status \(process.status ?? -1)): \(text.suffix(600))")
        }
        return text
    }
}
