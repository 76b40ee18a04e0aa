import Synchronization
import Testing
import TickwireFoundation
import TickwireNetcode
import TickwireSim
import TickwireTokens
import TickwireWebSocket

/// A FAKE matchmaker, for the client's tests only: an HTTP server on 127.0.0.1 answering the
/// requests of `Protocol/MATCHMAKER.md` with the contract's JSON, from a script, not from a room
/// directory (the real service is `MatchmakerService`, tested on its own). Its seats carry REAL
/// connect tokens, minted with ``ConnectTokenIssuer`` under ``key`` for the rooms it is told
/// of, so that a real host verifying that key admits the player they name.
final class FakeMatchmakerEndpoint {
    static let key = try! NetcodeKey(bytes: Array(repeating: 0x3C, count: 32))
    static let protocolID: UInt64 = 0x5449_434B_5749_5245

    /// A seat the fake hands out: which room, at which WebSocket URL, under which identity.
    struct SeatPlan: Sendable {
        var room: String
        var webSocketURL: String
        var userID: UInt64 = (UInt64(1) << 63) + 1
        var displayName = "ada#1"
        /// Long enough that a machine busy with the whole test run never sees a token expire (a
        /// test of expiry sets its own).
        var lifetimeSeconds: UInt64 = 600
        var isNewRoom = true
    }

    /// A request as the fake saw it.
    struct Seen: Sendable {
        let method: String
        let target: String
        let authorization: String?
        let contentType: String?
    }

    private struct Script: Sendable {
        /// The seats `POST /matchmake/…` hands out, one a request, in order (the last one repeats).
        var seats: [SeatPlan] = []
        var handed = 0
        /// Fixed answers by request target, over the seats (refusals, listings, broken answers).
        var fixed: [String: HTTPResponse] = [:]
        var seen: [Seen] = []
    }

    /// The script, shared with the server's handler on its loop thread.
    private final class Shared: Sendable {
        let script = Mutex(Script())
    }

    private let shared = Shared()
    private let server: HTTPTestServer
    let issuer = ConnectTokenIssuer(key: FakeMatchmakerEndpoint.key, protocolID: FakeMatchmakerEndpoint.protocolID)

    /// Starts the fake on a free port.
    init() throws {
        let shared = shared
        let issuer = issuer
        server = try HTTPTestServer { head in
            FakeMatchmakerEndpoint.respond(to: head, shared: shared, issuer: issuer)
        }
    }

    /// `http://127.0.0.1:PORT`.
    var url: String { "http://127.0.0.1:\(server.port)" }

    /// The seats to hand out, in order.
    func plan(_ seats: [SeatPlan]) { shared.script.withLock { $0.seats = seats } }

    /// Answers `target` with `status` and `body` (and `headers`) whatever the method.
    func answer(_ target: String, status: Int, body: String, headers: HTTPHeaders = HTTPHeaders()) {
        shared.script.withLock { $0.fixed[target] = HTTPResponse(status: status, headers: headers, body: Array(body.utf8)) }
    }

    /// The requests seen so far.
    var seen: [Seen] { shared.script.withLock { $0.seen } }

    /// Seats handed out so far.
    var seatsHanded: Int { shared.script.withLock { $0.handed } }

    private static func respond(to head: HTTPRequestHead, shared: Shared, issuer: ConnectTokenIssuer) -> HTTPResponse {
        let (fixed, plan) = shared.script.withLock { script -> (HTTPResponse?, SeatPlan?) in
            script.seen.append(
                Seen(
                    method: head.method, target: head.target, authorization: head.headers["Authorization"],
                    contentType: head.headers["Content-Type"]))
            if let fixed = script.fixed[head.target] { return (fixed, nil) }
            guard head.method == "POST", head.target.hasPrefix("/matchmake/"), !script.seats.isEmpty else { return (nil, nil) }
            let plan = script.seats[min(script.handed, script.seats.count - 1)]
            script.handed += 1
            return (nil, plan)
        }
        var headers: HTTPHeaders = ["Content-Type": "application/json", "Access-Control-Allow-Origin": "*"]
        if var fixed {
            for field in headers where fixed.headers[field.name] == nil { fixed.headers.add(name: field.name, value: field.value) }
            return fixed
        }
        guard let plan else {
            return HTTPResponse(status: 404, headers: headers, body: Array(#"{"error":"notFound","reason":"no such path"}"#.utf8))
        }
        do {
            let token = try issuer.issue(
                userID: plan.userID, room: plan.room, displayName: plan.displayName,
                serverAddresses: [NetcodeAddress(ipv4: 127, 0, 0, 1, port: 40_000)], lifetimeSeconds: plan.lifetimeSeconds)
            let mode = head.target.hasPrefix("/matchmake/joinById/") ? "arena" : String(head.target.split(separator: "/").last ?? "")
            let seat: JSONValue = .object([
                "room": .string(plan.room), "mode": .string(mode), "isNewRoom": .bool(plan.isNewRoom),
                "urls": .object(["ws": .string(plan.webSocketURL)]),
                "token": .string(hex(token.serialized())),
                "helloToken": .string(hex(helloBytes(token))),
                "expiresIn": .number(Double(plan.lifetimeSeconds)),
                "userId": .string(String(plan.userID)),
                "displayName": .string(plan.displayName),
            ])
            return HTTPResponse(status: 200, headers: headers, body: Array(seat.text.utf8))
        } catch {
            headers.add(name: "X-Fake", value: "mint failed")
            return HTTPResponse(status: 500, headers: headers, body: Array(#"{"error":"fake","reason":"\#(error)"}"#.utf8))
        }
    }

    /// The 1056 bytes a hello carries of `token` (PROTOCOL.md 5.3.1): expire timestamp
    /// (big-endian), nonce, encrypted private part.
    static func helloBytes(_ token: ConnectToken) -> [UInt8] {
        (0..<8).map { UInt8(truncatingIfNeeded: token.expireTimestamp >> (56 - 8 * $0)) } + token.nonce + token.encryptedPrivateData
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        return String(decoding: bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }, as: UTF8.self)
    }
}
