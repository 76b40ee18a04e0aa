import Synchronization
import TickwireFoundation
import TickwireSim
import TickwireTokens
import TickwireWebSocket

/// The matchmaker over HTTP (`Protocol/MATCHMAKER.md`): `POST /matchmake/{action}/{mode or
/// room}` reserves a seat in a ``MatchmakerStore`` for the player a ``MatchmakerAuthenticator``
/// names, and answers where to connect with the connect token that admits it there;
/// `GET /rooms` lists the public open rooms. Every answer carries the CORS headers a page on
/// another origin needs, and every refusal is `{"error": CODE, "reason": TEXT}`.
///
/// ```swift
/// let service = MatchmakerService(
///     store: InMemoryMatchmaker(store: directoryStore, rules: MatchmakingRules(capacities: ["arena": 16])),
///     issuer: ConnectTokenIssuer(key: fleetKey, protocolID: 0x5449_434B_5749_5245))
/// configuration.httpRequestHandler = service.handler(otherwise: page)
/// ```
///
/// Each address may ask ``TokenRequestBudget/limit`` times at once, refilled over
/// ``TokenRequestBudget/window`` (`429` past it). It counts its answers for `GET /metrics`
/// (``writeMetrics(to:)``). Thread-safe: the budget and the counts are in `Mutex`es, the rest
/// is immutable, and requests run concurrently.
public final class MatchmakerService: MetricsSource {
    /// The longest request body read: 4096 bytes (`413 bodyTooLarge` past it).
    public static let maximumBodyBytes = 4096
    /// The longest `name` option: 24 UTF-8 bytes after trimming spaces.
    public static let maximumNameBytes = 24
    /// The longest room name in a `joinById` path: 64 bytes (a hello's room names).
    public static let maximumRoomBytes = 64
    /// The budget the `Tickwire-Refusal` header names when an address asks too often.
    public static let rateBudget = WebSocketRefusal.Budget(rawValue: "address_matchmaker_rate_limit")
    /// The prefix of the seat requests' paths.
    public static let matchmakePath = "/matchmake/"
    /// The path of the room listing.
    public static let roomsPath = "/rooms"

    /// Where seats and rooms are kept.
    public let store: any MatchmakerStore
    /// What mints each seat's connect token.
    public let issuer: ConnectTokenIssuer
    let authenticator: MatchmakerAuthenticator
    private let budget: Mutex<TokenRequestBudget>
    private let now: @Sendable () -> Double
    private let counts = Mutex<[String: Int]>([:])

    /// A service over `store`.
    ///
    /// - Parameters:
    ///   - store: Where seats are reserved and rooms listed.
    ///   - issuer: Mints the connect tokens (with the fleet's key, which every host's verifier holds).
    ///   - authenticator: Names the player of each request (default: every player a guest).
    ///   - budget: Requests per source address (default ``TokenRequestBudget/defaultLimit`` at
    ///     once, refilled over ``TokenRequestBudget/window``; a limit of 0 lifts it).
    ///   - now: Seconds on a monotonic clock for the budget (a virtual one in tests), or `nil` for the process's.
    public init(
        store: any MatchmakerStore, issuer: ConnectTokenIssuer,
        authenticator: @escaping MatchmakerAuthenticator = MatchmakerAuthentication.guests,
        budget: TokenRequestBudget = TokenRequestBudget(), now: (@Sendable () -> Double)? = nil
    ) {
        self.store = store
        self.issuer = issuer
        self.authenticator = authenticator
        self.budget = Mutex(budget)
        self.now = now ?? { Double(MonotonicTime.now()) / 1e9 }
    }

    /// Whether `path` is one the service answers: `/rooms` and everything under `/matchmake/`.
    ///
    /// - Parameter path: A request's path (its target up to `?`).
    /// - Returns: Whether ``respond(to:)`` answers it.
    public static func serves(path: Substring) -> Bool {
        path == roomsPath || path.hasPrefix(matchmakePath)
    }

    /// A handler for ``WebSocketServerConfiguration/httpRequestHandler`` that answers the
    /// service's paths (``serves(path:)``) and hands every other request to `otherwise`.
    ///
    /// - Parameter otherwise: The handler for other paths (a page, `/metrics`), or `nil` for a
    ///   plain-text `404`.
    /// - Returns: The handler.
    public func handler(otherwise: (@Sendable (HTTPRequestHead) -> HTTPResponse)?) -> HTTPRequestHandler {
        { request in
            guard Self.serves(path: request.path) else { return otherwise?(request.head) ?? .text(status: 404, "not found") }
            return await self.respond(to: request)
        }
    }

    /// The answer to one request on the service's paths: a seat, a listing, a preflight's `204`,
    /// or a refusal, each with the CORS headers, and counted.
    ///
    /// - Parameter request: The request (its ``HTTPRequestHead/remoteHost`` is the address budgeted).
    /// - Returns: The answer.
    public func respond(to request: HTTPRequest) async -> HTTPResponse {
        var response: HTTPResponse
        var result: String
        do throws(MatchmakerRefusal) {
            (response, result) = try await answer(request)
        } catch {
            (response, result) = (error.response, error.code)
        }
        counts.withLock { $0[result, default: 0] += 1 }
        response.headers.add(name: "Access-Control-Allow-Origin", value: "*")
        return response
    }

    /// Routes a request; each refusal is thrown.
    private func answer(_ request: HTTPRequest) async throws(MatchmakerRefusal) -> (HTTPResponse, String) {
        // A preflight is answered on every path of the service, before the path is read: the
        // browser then sends the request itself, whose refusal (a 404 included) it can read.
        if request.method == "OPTIONS" {
            var headers: HTTPHeaders = [:]
            headers.add(name: "Access-Control-Allow-Methods", value: "GET, POST, OPTIONS")
            headers.add(name: "Access-Control-Allow-Headers", value: "Authorization, Content-Type")
            return (HTTPResponse(status: 204, headers: headers), "preflight")
        }
        let path = request.path
        let route: MatchmakerRoute
        if path == Self.roomsPath {
            route = .rooms
        } else {
            route = try MatchmakerRoute(path: path)
        }
        let method = request.method == "HEAD" && route == .rooms ? "GET" : request.method
        let allowed = route == .rooms ? "GET" : "POST"
        guard method == allowed else { throw .methodNotAllowed(request.method, allowed: allowed) }
        try admit(request.head.remoteHost)
        switch route {
        case .rooms: return (try await listing(query: request.query), "ok")
        case .seat(let kind, let target):
            let options = try Self.options(of: request)
            return (try await seat(kind, target: target, options: options, head: request.head), "ok")
        }
    }

    /// Takes one request from the address's budget, or refuses with 429.
    private func admit(_ address: String?) throws(MatchmakerRefusal) {
        let time = now()
        let (isAdmitted, limit) = budget.withLock { ($0.admit(address, now: time), $0.limit) }
        guard !isAdmitted else { return }
        // A bucket gains one request every window / limit seconds.
        let retryAfter = max(1, Int((TokenRequestBudget.window / Double(max(1, limit))).rounded(.up)))
        var refusal = MatchmakerRefusal(
            status: 429, code: "tooManyRequests",
            reason: "too many matchmaker requests from \(address ?? "this address"): at most \(limit) at once, "
                + "refilled over \(Int(TokenRequestBudget.window)) s")
        refusal.headers.add(name: "Retry-After", value: String(retryAfter))
        refusal.headers.add(name: WebSocketRefusal.headerName, value: WebSocketRefusal.headerValue(budget: Self.rateBudget, limit: limit))
        throw refusal
    }

    /// `GET /rooms[?mode=M]`.
    private func listing(query: Substring?) async throws(MatchmakerRefusal) -> HTTPResponse {
        var mode: String?
        for pair in (query ?? "").split(separator: "&") where pair.hasPrefix("mode=") {
            mode = String(pair.dropFirst("mode=".count))
        }
        if let mode, store.rules.capacities[mode] == nil { throw MatchmakerRefusal(MatchmakingError.unknownMode(mode)) }
        let rooms: [RoomListing]
        do {
            rooms = try await store.listRooms(mode: mode)
        } catch {
            throw MatchmakerRefusal(error)
        }
        let listed = rooms.map { room in
            JSONValue.object([
                "room": .string(room.room), "mode": .string(room.mode), "clients": .number(Double(room.clients)),
                "capacity": .number(Double(room.capacity)), "metadata": .object(room.metadata.mapValues { .string($0) }),
            ])
        }
        return Self.json(.object(["rooms": .array(listed)]))
    }

    /// The options object of a `POST`: its size, framing, JSON and the known options' types checked.
    static func options(of request: HTTPRequest) throws(MatchmakerRefusal) -> [String: JSONValue] {
        if request.head.headers["Transfer-Encoding"] != nil {
            throw MatchmakerRefusal(status: 411, code: "lengthRequired", reason: "a chunked body is not read; send Content-Length")
        }
        let announced = request.head.headers["Content-Length"].flatMap { Int($0) } ?? request.body.count
        let size = max(announced, request.body.count)
        guard size <= maximumBodyBytes else {
            throw MatchmakerRefusal(
                status: 413, code: "bodyTooLarge", reason: "the body is \(size) bytes, over the limit of \(maximumBodyBytes)")
        }
        guard !request.body.isEmpty else { return [:] }
        let value: JSONValue
        do {
            value = try JSONParser.parse(request.body)
        } catch {
            throw .badRequest("the body is not JSON: \(error)")
        }
        guard case .object(let options) = value else { throw .badRequest("the body is not a JSON object") }
        if let name = options["name"] {
            guard let text = name.stringValue else { throw .badRequest("the name option is not a string") }
            let bytes = trimmed(text).utf8.count
            guard (1...maximumNameBytes).contains(bytes) else {
                throw .badRequest("the name option is \(bytes) UTF-8 bytes after trimming spaces; it must be 1 to \(maximumNameBytes)")
            }
        }
        if let isPrivate = options["private"], isPrivate.boolValue == nil { throw .badRequest("the private option is not a boolean") }
        return options
    }

    /// `text` without the spaces (and tabs) at its ends.
    static func trimmed(_ text: String) -> String {
        String(text.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }

    /// A `200 OK` with a JSON body.
    static func json(_ value: JSONValue) -> HTTPResponse {
        HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Array(value.text.utf8))
    }

    /// Writes `tickwire_matchmaker_requests_total` by `result`: `ok` (a seat or a listing),
    /// `preflight` (an `OPTIONS`), or the refusal's `error` code.
    ///
    /// - Parameter writer: The body being written.
    public func writeMetrics(to writer: inout PrometheusWriter) {
        let counted = counts.withLock { $0 }
        writer.counter(
            "tickwire_matchmaker_requests_total", help: "Matchmaker HTTP requests, by result (ok or the refusal's error code).",
            label: "result", values: MatchmakerRefusal.codes.map { ($0, counted[$0] ?? 0) })
    }
}
