import Foundation
import TickwireRedis

#if canImport(Glibc)
import Glibc
#endif

/// A real `redis-server` (Debian's) on a free loopback port, persistence off, stopped by PID.
///
/// The binary comes from `TICKWIRE_REDIS_SERVER` (Tools/test exports it) or the `PATH`.
package final class RedisServerProcess {
    package let port: Int
    private var pid: pid_t = 0

    /// The `redis-server` binary, or `nil` when neither the variable nor the `PATH` has one.
    package static var binary: String? {
        if let path = ProcessInfo.processInfo.environment["TICKWIRE_REDIS_SERVER"], !path.isEmpty { return path }
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/usr/sbin").split(separator: ":")
        return directories.map { "\($0)/redis-server" }.first { access($0, X_OK) == 0 }
    }

    /// A port nobody listens on now: bind port 0, read the port back, close.
    package static func freePort() -> Int {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) } }
        _ = withUnsafeMutablePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) } }
        return Int(UInt16(bigEndian: address.sin_port))
    }

    /// Starts a server on a free port, trying other ports when one is taken meanwhile.
    package init() throws {
        var lastError: (any Error)?
        for _ in 0..<5 {
            let port = Self.freePort()
            do {
                pid = try Self.spawn(port: port)
                self.port = port
                return
            } catch {
                lastError = error
            }
        }
        throw lastError ?? TestFailure("no free port for redis-server")
    }

    /// Only a port, no server yet (for "Redis down at start"); ``start()`` starts it.
    package init(portOnly: Void) {
        port = Self.freePort()
    }

    package var url: RedisURL { RedisURL(host: "127.0.0.1", port: port) }

    /// Starts (again) on the same port.
    package func start() throws {
        guard pid == 0 else { return }
        var lastError: (any Error)?
        for _ in 0..<20 {  // the port may still be held for a moment after a kill
            do {
                pid = try Self.spawn(port: port)
                return
            } catch {
                lastError = error
            }
        }
        throw lastError ?? TestFailure("redis-server did not start")
    }

    /// Kills the server (SIGKILL) and reaps it (`waitpid`).
    package func stop() {
        guard pid > 0 else { return }
        kill(pid, SIGKILL)
        var status: Int32 = 0
        _ = waitpid(pid, &status, 0)
        pid = 0
    }

    /// Freezes (SIGSTOP) or thaws (SIGCONT) the server: a peer that stops answering.
    package func pause(_ isPaused: Bool) {
        guard pid > 0 else { return }
        kill(pid, isPaused ? SIGSTOP : SIGCONT)
    }

    deinit { stop() }

    private static func spawn(port: Int) throws -> pid_t {
        guard let binary else {
            throw TestFailure("redis-server not found: install Debian's redis-server or set TICKWIRE_REDIS_SERVER")
        }
        let arguments = [
            binary, "--port", String(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no", "--daemonize", "no",
            "--loglevel", "warning", "--logfile", "",
        ]
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var pid: pid_t = 0
        let status = posix_spawn(&pid, binary, &actions, nil, &argv, environ)
        guard status == 0 else { throw TestFailure("posix_spawn(\(binary)) failed: errno \(status)") }
        // Ready when it accepts a connection; gone when the port was taken.
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            var exitStatus: Int32 = 0
            if waitpid(pid, &exitStatus, WNOHANG) == pid { throw TestFailure("redis-server exited on port \(port)") }
            if canConnect(port: port) { return pid }
            usleep(5_000)
        }
        kill(pid, SIGKILL)
        var exitStatus: Int32 = 0
        _ = waitpid(pid, &exitStatus, 0)
        throw TestFailure("redis-server did not listen on port \(port) within 5 s")
    }

    private static func canConnect(port: Int) -> Bool {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = UInt16(port).bigEndian
        let length = socklen_t(MemoryLayout<sockaddr_in>.size)
        return withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, length) } } == 0
    }
}
