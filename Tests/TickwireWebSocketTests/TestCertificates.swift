import Foundation

/// Throwaway certificates made at run time with the `openssl` command in a temporary folder
/// (once per test process): a CA, a server certificate for `localhost` and `127.0.0.1` signed by
/// it, the same for another host name, an expired one, and a self-signed one. Nothing secret is
/// committed; the folder is the test process's own.
struct TestCertificates: Sendable {
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A certificate chain file and its key file.
    struct Pair: Sendable {
        let chain: String
        let key: String
    }

    let folder: String
    /// The throwaway CA's certificate.
    var caFile: String { folder + "/ca.pem" }
    /// For `localhost` and `127.0.0.1`, signed by the CA, valid now.
    var server: Pair { Pair(chain: folder + "/server.pem", key: folder + "/server.key") }
    /// Signed by the CA, valid now, for `other.example` only.
    var otherHost: Pair { Pair(chain: folder + "/other.pem", key: folder + "/other.key") }
    /// Signed by the CA for `localhost` and `127.0.0.1`, valid only on 1 January 2020.
    var expired: Pair { Pair(chain: folder + "/expired.pem", key: folder + "/server.key") }
    /// Self-signed, for `localhost` and `127.0.0.1`.
    var selfSigned: Pair { Pair(chain: folder + "/self.pem", key: folder + "/self.key") }

    /// The certificates of this test process, made on first use.
    static let shared: Result<TestCertificates, Failure> = Result { () throws(Failure) in try make() }

    /// The shared certificates, or a failure naming the `openssl` step that did not work.
    static func get() throws -> TestCertificates { try shared.get() }

    private static func make() throws(Failure) -> TestCertificates {
        let folder = NSTemporaryDirectory() + "tickwire-tls-\(ProcessInfo.processInfo.processIdentifier)"
        try? FileManager.default.removeItem(atPath: folder)
        do {
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            try caConfiguration.write(toFile: folder + "/ca.cnf", atomically: true, encoding: .utf8)
            try "".write(toFile: folder + "/index.txt", atomically: true, encoding: .utf8)
            try "01\n".write(toFile: folder + "/serial", atomically: true, encoding: .utf8)
            try extensions("DNS:localhost,IP:127.0.0.1").write(toFile: folder + "/server.ext", atomically: true, encoding: .utf8)
            try extensions("DNS:other.example").write(toFile: folder + "/other.ext", atomically: true, encoding: .utf8)
        } catch {
            throw Failure(description: "cannot write to \(folder): \(error)")
        }
        let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        try run(["req", "-x509", "-config", "ca.cnf"] + key + ["-keyout", "ca.key", "-out", "ca.pem", "-days", "2"], in: folder)
        for name in ["server", "other"] {
            let commonName = name == "server" ? "localhost" : "other.example"
            try run(["req", "-new"] + key + ["-keyout", "\(name).key", "-out", "\(name).csr", "-subj", "/CN=\(commonName)"], in: folder)
            try run(
                [
                    "x509", "-req", "-in", "\(name).csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-set_serial", name == "server" ? "2" : "3",
                    "-out", "\(name).pem", "-days", "2", "-extfile", "\(name).ext",
                ], in: folder)
        }
        // OpenSSL 3.0's x509 cannot set a start date in the past; `openssl ca` can.
        try run(
            [
                "ca", "-batch", "-config", "ca.cnf", "-cert", "ca.pem", "-keyfile", "ca.key", "-in", "server.csr", "-out", "expired.pem",
                "-startdate", "20200101000000Z", "-enddate", "20200102000000Z", "-extfile", "server.ext", "-notext",
            ], in: folder)
        try run(
            ["req", "-x509"] + key + [
                "-keyout", "self.key", "-out", "self.pem", "-days", "2", "-subj", "/CN=localhost",
                "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1",
            ], in: folder)
        return TestCertificates(folder: folder)
    }

    private static func run(_ arguments: [String], in folder: String) throws(Failure) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["openssl"] + arguments
        process.currentDirectoryURL = URL(fileURLWithPath: folder)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw Failure(description: "cannot run openssl (install the openssl package): \(error)")
        }
        let output = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = String(decoding: output, as: UTF8.self)
            throw Failure(description: "openssl \(arguments.joined(separator: " ")) failed: \(text)")
        }
    }

    private static func extensions(_ names: String) -> String {
        "subjectAltName=\(names)\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n"
    }

    private static let caConfiguration = """
        [req]
        distinguished_name = dn
        x509_extensions = v3_ca
        prompt = no
        [dn]
        CN = Tickwire Test CA
        [v3_ca]
        basicConstraints = critical, CA:TRUE
        keyUsage = critical, keyCertSign, cRLSign
        subjectKeyIdentifier = hash
        [ca]
        default_ca = test
        [test]
        database = index.txt
        new_certs_dir = .
        serial = serial
        default_md = sha256
        policy = anything
        unique_subject = no
        [anything]
        commonName = supplied

        """
}
