import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A child process of `tickwire bench transport` (`lab …`, `arena serve`, `arena join`) whose
/// standard output and error go to a file, so that a long dump never fills a pipe.
///
/// Not thread-safe; used by one thread. ``stop()`` (also run by `deinit`) ends the process:
/// SIGTERM, then SIGKILL if it has not exited within 3 s.
final class BenchTransportProcess {
    /// What it runs, for messages.
    let label: String
    /// The file its output goes to.
    let output: URL
    private let process = Process()

    /// Starts `executable` with `arguments`, its output to `output`.
    ///
    /// - Throws: ``BenchFailure`` when it cannot start.
    init(_ label: String, executable: String, arguments: [String], output: URL) throws(BenchFailure) {
        self.label = label
        self.output = output
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.standardInput = FileHandle.nullDevice
        do {
            guard FileManager.default.createFile(atPath: output.path, contents: nil) else {
                throw BenchFailure(description: "cannot create \(output.path) for the output of \(label)")
            }
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
        } catch let failure as BenchFailure {
            throw failure
        } catch {
            throw BenchFailure(description: "starting \(label) (\(executable)) failed: \(error)")
        }
    }

    deinit { stop() }

    /// Whether it still runs.
    var isRunning: Bool { process.isRunning }

    /// Its exit status, once it has exited.
    var status: Int32? { process.isRunning ? nil : process.terminationStatus }

    /// What it has written so far.
    ///
    /// - Throws: ``BenchFailure`` when the output file cannot be read.
    func text() throws(BenchFailure) -> String {
        do { return try String(contentsOf: output, encoding: .utf8) } catch {
            throw BenchFailure(description: "reading the output of \(label) from \(output.path) failed: \(error)")
        }
    }

    /// Waits until it exits, at most `seconds`.
    ///
    /// - Returns: Whether it exited in time.
    @discardableResult
    func wait(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(20_000) }  // polling a child, bounded by the deadline
        if process.isRunning { return false }
        process.waitUntilExit()
        return true
    }

    /// Waits, at most `seconds`, until its output holds `text`.
    ///
    /// - Throws: ``BenchFailure`` when it exits first or the time runs out, with its last output.
    func waitForOutput(containing text: String, seconds: Double) throws(BenchFailure) {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if try self.text().contains(text) { return }
            guard process.isRunning else {
                throw BenchFailure(
                    description: "\(label) exited with status \(process.terminationStatus) before printing '\(text)': \(try tail())")
            }
            usleep(50_000)  // polling a child's output file, bounded by the deadline
        }
        throw BenchFailure(description: "\(label) did not print '\(text)' within \(Int(seconds)) s: \(try tail())")
    }

    /// The last 600 characters of its output.
    func tail() throws(BenchFailure) -> String { String(try text().suffix(600)) }

    /// Ends it: SIGTERM, then SIGKILL after 3 s.
    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        if !wait(seconds: 3) { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }
}
