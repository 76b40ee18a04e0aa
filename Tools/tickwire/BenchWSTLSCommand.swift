import CommandLineSupport
import Foundation
import TickwireIO

/// `tickwire bench ws --tls [--json] [--seconds S] [--rounds R] [--idle N] [--sizes 64,65536]
/// [--connections 10,100] [--in-flight 1,16]`: our `wss://` echo against Python `websockets`
/// over `ssl` and against our own plain `ws://` echo, in the same run, at 64 B × 100 connections
/// and 64 KiB × 10 connections (1 and 16 messages in flight), and the server's memory per idle
/// TLS connection.
///
/// The certificate is a throwaway self-signed one for 127.0.0.1, made with the `openssl` command
/// in a temporary folder; the load client (``BenchLoadClient``) verifies it and its host name as
/// any client does. Rounds alternate the servers; each server's median round is reported, with
/// each process's CPU time per echoed message. The cipher suite is what our server and client
/// negotiate by default (``TLSLibrary``); the report names it.
///
/// The server's limit per message is worked out in the same run, round by round: our plain `ws`
/// server's CPU time per message in the round plus two passes of the negotiated cipher over the
/// payload (the server decrypts the message and encrypts its echo), at the speed
/// `openssl speed -evp` measures for 16 KiB blocks (a full TLS record) right after the round's
/// servers. The `wss` server's CPU per message over that limit is taken in each round, and the
/// median of the rounds' ratios is reported.
enum BenchWSTLSCommand {
    static let cases: [(size: Int, connections: Int, inFlight: Int)] = [(64, 100, 1), (64, 100, 16), (65536, 10, 1), (65536, 10, 16)]

    static func run(
        seconds: Double, rounds roundCount: Int, idle: Int, python: String?, repository: URL, asJSON: Bool,
        filter: ((size: Int, connections: Int, inFlight: Int)) -> Bool
    ) throws {
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
        var negotiated = "TLS not negotiated"
        var measured: [BenchWSTLSCaseReport] = []
        var cipherSpeeds: [BenchCipherSpeed] = []
        for testCase in cases where filter(testCase) {
            var results: [[BenchWSResult]] = Array(repeating: [], count: servers.count)
            var rounds: [BenchWSTLSRound] = []
            func lastResult(of kind: BenchEchoServerProcess.Kind) -> BenchWSResult? {
                servers.firstIndex { $0.kind == kind }.flatMap { results[$0].last }
            }
            for round in 1...roundCount {
                for (index, server) in servers.enumerated() {
                    let result = BenchWSCommand.measure(
                        server, size: testCase.size, connections: testCase.connections,
                        inFlight: testCase.inFlight, seconds: seconds, tls: context,
                        negotiated: server.kind == .tickwireTLS ? { negotiated = $0 } : nil)
                    let name = BenchWSTLSCaseReport(
                        size: testCase.size, connections: testCase.connections, inFlight: testCase.inFlight, results: []
                    ).name
                    StandardError.write("bench ws --tls: \(name), \(server.kind.label), round \(round): \(result.summary)\n")
                    results[index].append(result)
                }
                // The cipher right after the servers, so that the limit of each round is measured
                // on the machine as the round found it (a shared machine's speed moves by half
                // from minute to minute; the servers' CPU per message moves with it).
                let cipherSpeed = measureCipherSpeed(negotiated: negotiated)
                cipherSpeeds.append(cipherSpeed)
                rounds.append(
                    BenchWSTLSRound(
                        size: testCase.size, wss: lastResult(of: .tickwireTLS), ws: lastResult(of: .tickwire),
                        cipherBytesPerSecond: cipherSpeed.bytesPerSecond))
            }
            measured.append(
                BenchWSTLSCaseReport(
                    size: testCase.size, connections: testCase.connections, inFlight: testCase.inFlight,
                    results: results.map(BenchWSCommand.median), rounds: rounds))
        }
        for server in servers { server.stop() }
        let reports = measured
        let cipherSpeed = BenchCipherSpeed.median(of: cipherSpeeds, negotiated: negotiated)
        StandardError.write("bench ws --tls: memory, \(idle) idle TLS connections\n")
        let memory = BenchWSCommand.measureIdleMemory(
            connections: idle, compression: false, repository: repository,
            tls: (context, chain, key))
        let report = BenchWSTLSReport(
            secondsPerCase: seconds, rounds: roundCount, negotiated: negotiated, cipherSpeed: cipherSpeed, cases: reports,
            idleMemory: memory)
        try report.print(asJSON: asJSON)
    }

    /// The block size `openssl speed` measures the cipher at: one full TLS record.
    static let cipherBlockBytes = 16 * 1024

    /// The `openssl speed -evp` name of a TLS 1.3 cipher suite's AEAD, from the report's
    /// "TLSv1.3 TLS_AES_128_GCM_SHA256".
    static func cipherName(negotiated: String) -> String? {
        if negotiated.contains("AES_128_GCM") { return "aes-128-gcm" }
        if negotiated.contains("AES_256_GCM") { return "aes-256-gcm" }
        if negotiated.contains("CHACHA20_POLY1305") { return "chacha20-poly1305" }
        return nil
    }

    /// Runs `openssl speed -seconds 1 -bytes 16384 -evp CIPHER` for the negotiated cipher and
    /// reads its throughput (bytes per second of CPU time) at the block size closest to a record.
    ///
    /// - Parameter negotiated: The report's "TLSv1.3 TLS_AES_128_GCM_SHA256".
    /// - Returns: The figure, or why there is none (the limit is then left out of the report).
    static func measureCipherSpeed(negotiated: String) -> BenchCipherSpeed {
        guard let cipher = cipherName(negotiated: negotiated) else {
            return BenchCipherSpeed(cipher: negotiated, failure: "no openssl speed cipher for \(negotiated)")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl", "speed", "-seconds", "1", "-bytes", "\(cipherBlockBytes)", "-evp", cipher]
        let pipe = Pipe()
        process.standardOutput = pipe
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            return BenchCipherSpeed(cipher: cipher, failure: "cannot run openssl speed: \(error)")
        }
        let output = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0, let speed = CipherSpeed(opensslSpeedOutput: output, cipher: cipher) else {
            return BenchCipherSpeed(
                cipher: cipher, failure: "openssl speed exited with \(process.terminationStatus) or printed no \(cipher) row")
        }
        let closest = speed.bytesPerSecond(closestTo: cipherBlockBytes)
        return BenchCipherSpeed(cipher: cipher, blockBytes: closest.blockBytes, bytesPerSecond: closest.bytesPerSecond)
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
