import CommandLineSupport
import Foundation
import TickwireIO

/// `tickwire bench ws --tls [--seconds S] [--rounds R] [--idle N]`: our `wss://` echo against
/// Python `websockets` over `ssl` and against our own plain `ws://` echo, in the same run, at
/// 64 B × 100 connections and 64 KiB × 10 connections (1 and 16 messages in flight), and the
/// server's memory per idle TLS connection.
///
/// The certificate is a throwaway self-signed one for 127.0.0.1, made with the `openssl` command
/// in a temporary folder; the load client (``BenchLoadClient``) verifies it. Rounds alternate the
/// servers; each server's median round is reported. TLS 1.3 with OpenSSL's default cipher choice.
enum BenchWSTLSCommand {
    static let cases: [(size: Int, connections: Int, inFlight: Int)] = [(64, 100, 1), (64, 100, 16), (65536, 10, 1), (65536, 10, 16)]

    static func run(seconds: Double, rounds: Int, idle: Int, python: String?, repository: URL) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tickwire-bench-tls-\(getpid())").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let chain = folder + "/cert.pem", key = folder + "/key.pem"
        try makeCertificate(chain: chain, key: key)
        var tls = TLSClientConfiguration(caFile: chain)
        tls.serverName = "127.0.0.1"
        let context = try TLSClientContext(configuration: tls)

        var kinds: [BenchEchoServerProcess.Kind] = [.tickwireTLS, .tickwire]
        if python != nil { kinds.append(.pythonTLS) }
        let servers = try kinds.map { kind throws(BenchFailure) in
            try BenchEchoServerProcess(kind: kind, python: python, repository: repository, certificate: (chain, key))
        }
        defer { for server in servers { server.stop() } }
        var lines: [String] = []
        lines.append("bench ws --tls: medians of \(rounds) rounds of \(decimalText(seconds, places: 1)) s; messages/s (p50 / p99 µs)")
        lines.append(pad("case", 26) + kinds.map { pad($0.label, 28) }.joined() + "wss/py  wss/ws")
        for testCase in cases {
            var results: [[BenchWSResult]] = Array(repeating: [], count: servers.count)
            for round in 1...rounds {
                for (index, server) in servers.enumerated() {
                    let result = BenchWSCommand.measure(
                        server, size: testCase.size, connections: testCase.connections,
                        inFlight: testCase.inFlight, seconds: seconds, tls: context)
                    StandardError.write("bench ws --tls: \(name(testCase)), \(server.kind.label), round \(round): \(result.summary)\n")
                    results[index].append(result)
                }
            }
            let medians = results.map(BenchWSCommand.median)
            func rate(_ kind: BenchEchoServerProcess.Kind) -> Double? {
                kinds.firstIndex(of: kind).map { medians[$0] }.flatMap { $0.failure == nil ? $0.messagesPerSecond : nil }
            }
            let ratio = { (baseline: BenchEchoServerProcess.Kind) -> String in
                guard let ours = rate(.tickwireTLS), let other = rate(baseline), other > 0 else { return "-" }
                return decimalText(ours / other, places: 2)
            }
            let cells = medians.map { result -> String in
                guard result.failure == nil else { return pad("failed", 28) }
                return pad("\(Int(result.messagesPerSecond)) (\(Int(result.p50Microseconds)) / \(Int(result.p99Microseconds)))", 28)
            }
            lines.append(pad(name(testCase), 26) + cells.joined() + pad(ratio(.pythonTLS), 8) + ratio(.tickwire))
        }
        for server in servers { server.stop() }
        StandardError.write("bench ws --tls: memory, \(idle) idle TLS connections\n")
        let memory = BenchWSCommand.measureIdleMemory(
            connections: idle, compression: false, repository: repository,
            tls: (context, chain, key))
        if let bytes = memory.bytesPerConnection {
            lines.append(
                "memory per idle TLS connection: \(decimalText(bytes / 1024, places: 1)) KiB (\(idle) connections, server RSS growth)")
        } else {
            lines.append("memory per idle TLS connection: failed: \(memory.failure ?? "unknown")")
        }
        print(lines.joined(separator: "\n"))
    }

    private static func name(_ testCase: (size: Int, connections: Int, inFlight: Int)) -> String {
        let size = testCase.size >= 1024 ? "\(testCase.size / 1024) KiB" : "\(testCase.size) B"
        return "\(size) × \(testCase.connections) × \(testCase.inFlight) in flight"
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count)
    }

    /// A self-signed certificate for 127.0.0.1 (`openssl req -x509`), valid one day.
    private static func makeCertificate(chain: String, key: String) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [
            "openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes", "-days", "1",
            "-subj", "/CN=127.0.0.1", "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", key, "-out", chain,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw BenchFailure(description: "openssl could not make the benchmark's certificate") }
    }
}
