import Foundation
import Synchronization
import TickwireFoundation
import TickwireMatchmaker
import TickwireNetcode
import TickwireRedisTestSupport
import TickwireSim
import TickwireTokens
import TickwireWebSocket

/// A fleet of three processes on an in-memory store (`a` with UDP, `b` and `c` WebSocket only,
/// `c` behind `wss://` with a trailing slash), and a service over it with a budget on a virtual clock.
final class ServiceFixture: Sendable {
    static let rules = MatchmakingRules(capacities: ["arena": 16, "duel": 2], reservationTTL: .seconds(30))
    static let protocolID: UInt64 = 0x5449_434B_5749_5245

    let clock: VirtualClock
    let store: InMemoryDirectoryStore
    let directories: [InMemoryRoomDirectory]
    let key: NetcodeKey
    let service: MatchmakerService
    /// The budget's clock, in seconds (a test moves it on).
    let budgetClock = BudgetClock()

    init(
        processes: [String] = ["a", "b", "c"], authenticator: @escaping MatchmakerAuthenticator = MatchmakerAuthentication.guests,
        limit: Int = 1000
    ) {
        let clock = VirtualClock()
        self.clock = clock
        let store = InMemoryDirectoryStore(clock: clock)
        self.store = store
        directories = processes.map { id in
            switch id {
            case "a": store.directory(forProcess: id, publicURL: "ws://127.0.0.1:7777", udpURL: "udp://127.0.0.1:7778")
            case "c": store.directory(forProcess: id, publicURL: "wss://c.example.com/")
            default: store.directory(forProcess: id, publicURL: "ws://\(id).example.com:4000")
            }
        }
        let key = NetcodeKey.random()
        self.key = key
        let time = budgetClock
        service = MatchmakerService(
            store: InMemoryMatchmaker(store: store, rules: Self.rules), issuer: ConnectTokenIssuer(key: key, protocolID: Self.protocolID),
            authenticator: authenticator, budget: TokenRequestBudget(limit: limit), now: { time.seconds.withLock { $0 } })
    }

    var verifier: NetcodeConnectTokenVerifier { NetcodeConnectTokenVerifier(key: key, protocolID: Self.protocolID) }

    /// Sends a request to the service.
    func send(
        _ method: String, _ target: String, body: String = "", headers: HTTPHeaders = HTTPHeaders(), from host: String? = "10.0.0.1"
    ) async -> HTTPResponse {
        await service.respond(to: request(method, target, body: Array(body.utf8), headers: headers, from: host))
    }
}

/// A virtual clock for a budget.
final class BudgetClock: Sendable {
    let seconds = Mutex<Double>(0)
}

/// A request as the server hands it over.
func request(_ method: String, _ target: String, body: [UInt8] = [], headers: HTTPHeaders = HTTPHeaders(), from host: String? = "10.0.0.1")
    -> HTTPRequest
{
    var head = HTTPRequestHead(method: method, target: target, headers: headers)
    head.remoteHost = host
    if !body.isEmpty, head.headers["Content-Length"] == nil { head.headers.add(name: "Content-Length", value: String(body.count)) }
    return HTTPRequest(head: head, body: body)
}

extension HTTPResponse {
    /// The body as JSON (`.null` when it is not).
    var json: JSONValue {
        do {
            return try JSONParser.parse(body)
        } catch {
            return .null
        }
    }

    /// The body's text, for failure messages.
    var text: String { String(decoding: body, as: UTF8.self) }

    /// The refusal's `error` code.
    var errorCode: String? { json["error"]?.stringValue }
}

/// Lowercase hexadecimal digits to bytes (nil for anything else).
func bytes(ofHex text: String) -> [UInt8]? {
    let digits = Array(text.utf8)
    guard digits.count.isMultiple(of: 2) else { return nil }
    var result: [UInt8] = []
    var index = 0
    while index < digits.count {
        guard let byte = UInt8(String(decoding: digits[index..<index + 2], as: UTF8.self), radix: 16) else { return nil }
        result.append(byte)
        index += 2
    }
    return result
}
