import Dispatch
import Testing

@testable import ArenaGame

/// An `ArenaServer` run on a thread of its own until ``stop()``, for tests that play against a
/// real server on 127.0.0.1.
///
/// Unchecked `Sendable`: only the running thread drives the server until `run` returns, which
/// ``stop()`` waits for; the test reads its bound ports and statistics, which the server keeps
/// thread-safe.
final class RunningArenaServer: @unchecked Sendable {
    /// The server.
    let server: ArenaServer
    private let stopRequest: ServerStopRequest
    private let done = DispatchSemaphore(value: 0)

    /// Creates the server with `options` and starts it on a global queue's thread.
    init(_ options: ArenaServer.Options) throws {
        let stopRequest = ServerStopRequest()
        server = try ArenaServer(options: options, stopRequest: stopRequest)
        self.stopRequest = stopRequest
        DispatchQueue.global().async { [self] in
            server.run()
            done.signal()
        }
    }

    /// Asks the server to stop and waits for it to return, 10 s at most.
    func stop() {
        stopRequest.requestStop()
        #expect(done.wait(timeout: .now() + .seconds(10)) == .success, "the server did not stop within 10 s")
    }
}
