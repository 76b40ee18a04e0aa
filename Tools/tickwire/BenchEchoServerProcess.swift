import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// An echo server under test, run as a child process so that its memory and CPU are its own:
/// `tickwire echo` (WebSocket or `--tcp`) or the Python `websockets` echo.
///
/// Not thread-safe; used by one thread. ``stop()`` (also run by `deinit`) ends the process:
/// SIGTERM, then SIGKILL if it has not exited within 3 s.
final class BenchEchoServerProcess {
    /// Which server.
    enum Kind: String, Codable, CaseIterable {
        case tickwire, tcp, python

        /// How the report names it.
        var label: String {
            switch self {
            case .tickwire: "tickwire ws"
            case .tcp: "plain TCP"
            case .python: "py websockets"
            }
        }
    }

    let kind: Kind
    let port: Int
    private let process: Process
    private let directory: URL

    /// Starts the server and waits (at most 10 s) until it reports its port.
    ///
    /// - Parameters:
    ///   - kind: Which server.
    ///   - compression: For ``Kind/tickwire``: whether it offers permessage-deflate.
    ///   - python: The Python interpreter with `websockets` (for ``Kind/python``).
    ///   - repository: The repository root (for `Tools/autobahn/python_echo.py`).
    /// - Throws: ``BenchFailure`` when it cannot start or does not report a port.
    init(kind: Kind, compression: Bool = false, python: String? = nil, repository: URL) throws(BenchFailure) {
        self.kind = kind
        directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "tickwire-bench-\(getpid())-\(kind.rawValue)-\(UInt32.random(in: 0...UInt32.max))")
        let output = directory.appendingPathComponent("output")
        let portFile = directory.appendingPathComponent("port")
        process = Process()
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            _ = FileManager.default.createFile(atPath: output.path, contents: nil)
            switch kind {
            case .tickwire, .tcp:
                process.executableURL = URL(fileURLWithPath: try Self.ownExecutable())
                var arguments = ["echo", "--host", "127.0.0.1", "--port", "0"]
                if kind == .tcp { arguments.append("--tcp") } else if !compression { arguments.append("--no-compression") }
                process.arguments = arguments
            case .python:
                guard let python else { throw BenchFailure(description: "no Python with websockets") }
                process.executableURL = URL(fileURLWithPath: python)
                process.arguments = [repository.appendingPathComponent("Tools/autobahn/python_echo.py").path, portFile.path]
            }
            let handle = try FileHandle(forWritingTo: output)
            process.standardOutput = handle
            process.standardError = handle
            try process.run()
        } catch let failure as BenchFailure {
            throw failure
        } catch {
            throw BenchFailure(description: "starting the \(kind.label) server failed: \(error)")
        }
        var found: Int?
        for _ in 0..<200 where found == nil && process.isRunning {
            found = Self.readPort(kind: kind, output: output, portFile: portFile)
            if found == nil { usleep(50_000) }  // polling a child's output file, bounded by 200 × 50 ms
        }
        guard let found else {
            let log = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
            Self.end(process)
            throw BenchFailure(description: "the \(kind.label) server reported no port within 10 s: \(log.prefix(300))")
        }
        port = found
    }

    deinit { stop() }

    /// The server's process id.
    var pid: Int32 { process.processIdentifier }

    /// Ends the server and removes its scratch directory.
    func stop() {
        Self.end(process)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Resident memory in bytes (`VmRSS` in `/proc/PID/status`).
    func residentBytes() -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix("VmRSS:") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            if fields.count >= 2, let kilobytes = Int(fields[1]) { return kilobytes * 1024 }
        }
        return nil
    }

    /// User + system CPU seconds so far (fields 14 and 15 of `/proc/PID/stat`).
    func cpuSeconds() -> Double? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        // After the command name: state is field 3, so utime (14) and stime (15) are at 11 and 12.
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    private static func end(_ process: Process) {
        guard process.isRunning else { return }
        process.terminate()
        for _ in 0..<60 where process.isRunning { usleep(50_000) }  // bounded: 3 s
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    private static func readPort(kind: Kind, output: URL, portFile: URL) -> Int? {
        switch kind {
        case .python:
            guard let text = try? String(contentsOf: portFile, encoding: .utf8) else { return nil }
            return Int(text.trimmingCharacters(in: .whitespacesAndNewlines))
        case .tickwire, .tcp:
            // `tickwire echo` prints "listening on ws://127.0.0.1:PORT/" (or tcp://) once bound.
            guard let text = try? String(contentsOf: output, encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("listening on ") }),
                let colon = line.lastIndex(of: ":")
            else { return nil }
            return Int(line[line.index(after: colon)...].prefix { $0.isNumber })
        }
    }

    private static func ownExecutable() throws -> String {
        try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    }
}
