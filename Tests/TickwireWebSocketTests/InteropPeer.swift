import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `Tools/interop/peer.py` (the Python `websockets` library, from PyPI) run as a child process:
/// the independent peer of the interop tests.
///
/// Every wait is bounded; ``stop()`` (also run by `deinit`) ends the process with SIGTERM, then
/// SIGKILL if it is still running after 3 s, so no test leaves one behind.
final class InteropPeer {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The Python interpreter with `websockets`, from `TICKWIRE_PYTHON` (set by `Tools/test`).
    static let python: String? = {
        guard let path = ProcessInfo.processInfo.environment["TICKWIRE_PYTHON"], !path.isEmpty,
            FileManager.default.isExecutableFile(atPath: path)
        else { return nil }
        return path
    }()

    /// `Tools/interop/peer.py`, found from this file's place in the repository.
    static let script = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Tools/interop/peer.py").path

    private let process = Process()
    private let directory: URL
    private let outputFile: URL

    /// Starts `peer.py` with `arguments`; `{dir}` in an argument is replaced by a scratch directory.
    init(_ arguments: [String]) throws {
        guard let python = Self.python else { throw Failure(description: "TICKWIRE_PYTHON is not set") }
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-interop-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        outputFile = directory.appendingPathComponent("output")
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [Self.script] + arguments.map { $0.replacingOccurrences(of: "{dir}", with: directory.path) }
        let handle = try FileHandle(forWritingTo: outputFile)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    deinit { stop() }

    /// Starts `peer.py server` and waits (at most `timeout` seconds) for the port it reports.
    ///
    /// - Parameters:
    ///   - port: The port to bind (0: any), to restart on a port used before.
    ///   - extraArguments: For example `--no-compression`.
    /// - Returns: The running peer and its port.
    static func server(port: Int = 0, _ extraArguments: [String] = [], timeout: Double = 15) throws -> (InteropPeer, Int) {
        let peer = try InteropPeer(["server", "--port-file", "{dir}/port", "--port", String(port)] + extraArguments)
        let portFile = peer.directory.appendingPathComponent("port")
        let deadline = Date().addingTimeInterval(timeout)
        // Polling a file the child writes (atomically, by rename), bounded by `timeout`.
        while Date() < deadline && peer.process.isRunning {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let found = Int(text) { return (peer, found) }
            usleep(20_000)
        }
        throw Failure(description: "peer.py server reported no port within \(timeout) s; its output: \(peer.output)")
    }

    /// What the peer printed so far.
    var output: String { (try? String(contentsOf: outputFile, encoding: .utf8)) ?? "" }

    /// Waits for the peer to exit by itself, at most `timeout` seconds.
    ///
    /// - Returns: Its exit status, or `nil` if it was still running (it is then stopped).
    func waitForExit(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning && Date() < deadline { usleep(20_000) }
        guard !process.isRunning else {
            stop()
            return nil
        }
        return process.terminationStatus
    }

    /// Ends the peer (SIGTERM, SIGKILL after 3 s) and removes its scratch directory.
    func stop() {
        if process.isRunning {
            process.terminate()
            for _ in 0..<150 where process.isRunning { usleep(20_000) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }
}
