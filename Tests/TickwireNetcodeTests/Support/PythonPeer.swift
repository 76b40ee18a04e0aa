import Foundation

/// TEST ONLY: the independent Python netcode.io peer (`Tools/netcode-peer/peer.py`) as a child
/// process, stopped by its PID. Output goes to a temporary file, shown when a test fails.
final class PythonPeer {
    struct Missing: Error, CustomStringConvertible {
        let description: String
    }

    let process = Process()
    let outputURL: URL

    /// The Python to run: `TICKWIRE_PYTHON` (Tools/test exports it), else `.venv/bin/python` in the package root.
    static func interpreter() throws -> URL {
        if let path = ProcessInfo.processInfo.environment["TICKWIRE_PYTHON"], FileManager.default.isExecutableFile(atPath: path) {
            return URL(fileURLWithPath: path)
        }
        let venv = packageRoot().appendingPathComponent(".venv/bin/python")
        guard FileManager.default.isExecutableFile(atPath: venv.path) else {
            throw Missing(
                description: """
                    no Python for the netcode peer: set TICKWIRE_PYTHON, or create the venv in the package root with \
                    `python3 -m venv .venv && .venv/bin/pip install -r Tools/python-requirements.txt` (PyNaCl is needed)
                    """)
        }
        return venv
    }

    /// Starts `Tools/netcode-peer/<script>` with `arguments`.
    init(script: String = "peer.py", arguments: [String]) throws {
        process.executableURL = try Self.interpreter()
        process.arguments = [packageRoot().appendingPathComponent("Tools/netcode-peer/\(script)").path] + arguments
        outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("netcode-peer-\(UUID().uuidString).log")
        guard FileManager.default.createFile(atPath: outputURL.path, contents: nil) else {
            throw Missing(description: "cannot create the peer's log file \(outputURL.path)")
        }
        let output = try FileHandle(forWritingTo: outputURL)
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    var output: String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "(no output)" }

    /// Stops the process by its PID (SIGTERM, then SIGKILL after 2 s) and waits for it; bounded.
    func stop() {
        let pid = process.processIdentifier
        if process.isRunning { kill(pid, SIGTERM) }
        let deadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        if process.isRunning { kill(pid, SIGKILL) }
        let hardDeadline = Date().addingTimeInterval(2)
        while process.isRunning && Date() < hardDeadline { usleep(10_000) }
    }

    /// Waits up to `seconds` for the process to exit by itself; true when it did.
    func waitForExit(seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning && Date() < deadline { usleep(10_000) }
        return !process.isRunning
    }

    deinit {
        stop()
        try? FileManager.default.removeItem(at: outputURL)
    }
}
