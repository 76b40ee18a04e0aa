import Dispatch
import Foundation
import Synchronization
import TickwireRedis
import TickwireRedisTestSupport
import TickwireSim

#if canImport(Glibc)
import Glibc
#endif

/// Asks `directory` for `room` until the answer is not pending (at most `seconds`).
func settledPlacement(_ directory: RedisRoomDirectory, _ room: String, within seconds: Double = 5) -> RoomPlacement {
    var answer = RoomPlacement.pending
    _ = eventually(within: seconds) {
        answer = directory.placement(ofRoom: room)
        return answer != .pending
    }
    return answer
}

extension RedisClient {
    /// Sends `command` and waits for its reply, at most `seconds`.
    func call(_ command: RedisCommand, within seconds: Double = 5) -> Result<RedisReply, RedisError>? {
        let result = Mutex<Result<RedisReply, RedisError>?>(nil)
        let done = DispatchSemaphore(value: 0)
        send(command) { reply in
            result.withLock { $0 = reply }
            done.signal()
        }
        guard done.wait(timeout: .now() + seconds) == .success else { return nil }
        return result.withLock { $0 }
    }

    /// A connected client for a test (at most 5 s to connect).
    static func connected(to url: RedisURL, configuration: RedisClientConfiguration = RedisClientConfiguration()) throws -> RedisClient {
        let client = try RedisClient(url: url, configuration: configuration)
        client.start()
        guard eventually(within: 5, { client.isConnected }) else {
            client.stop()
            throw TestFailure("the client did not connect to \(url) within 5 s")
        }
        return client
    }
}
