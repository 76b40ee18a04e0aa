import Synchronization
import Tickwire

/// `GET /udp-token` on the arena's HTTP port: a fresh guest connect token (its 2048 bytes in
/// hexadecimal) for each request, naming every UDP server of the process (the one with the most
/// free slots first), at most ``TokenRequestBudget/limit`` at once from one source
/// address (refilled over ``TokenRequestBudget/window``); past that, `429 Too Many Requests`
/// with `Tickwire-Refusal: address_token_rate_limit; limit=N` (``rateBudget``).
///
/// It counts what it answered for `GET /metrics` (``writeMetrics(to:)``). Thread-safe: the
/// budget is in a `Mutex`, the counts are atomics.
final class ArenaUDPTokenEndpoint: MetricsSource {
    /// The budget the `Tickwire-Refusal` header names when an address asks too often.
    static let rateBudget = WebSocketRefusal.Budget(rawValue: "address_token_rate_limit")

    private let key: NetcodeKey
    private let addresses: @Sendable () -> [NetcodeAddress]
    private let budget: Mutex<TokenRequestBudget>
    private let now: @Sendable () -> Double
    private let accepted = Atomic<Int>(0)
    private let rateLimited = Atomic<Int>(0)
    private let failed = Atomic<Int>(0)

    /// An endpoint minting tokens for the addresses `addresses` gives at each request.
    ///
    /// - Parameters:
    ///   - key: The server's private key.
    ///   - addresses: The UDP servers' public addresses in the order a token names them (a
    ///     client tries them in turn), at most `Netcode.maxServersPerConnect`; asked at every
    ///     request (``ArenaUDPServers/addressesByFreeSlots()``: the least loaded first).
    ///   - limitPerAddress: Requests at once per source address (0: no limit).
    ///   - now: Seconds on a monotonic clock (a virtual one in tests), or `nil` for the process's.
    init(
        key: NetcodeKey, addresses: @escaping @Sendable () -> [NetcodeAddress], limitPerAddress: Int = TokenRequestBudget.defaultLimit,
        now: (@Sendable () -> Double)? = nil
    ) {
        self.key = key
        self.addresses = addresses
        budget = Mutex(TokenRequestBudget(limit: limitPerAddress))
        let clock = MonotonicClock()
        self.now = now ?? { clock.now.seconds }
    }

    /// An HTTP handler that answers ``ArenaUDP/tokenPath`` and passes every other request on.
    ///
    /// - Parameter otherwise: The handler for other paths.
    /// - Returns: The handler.
    func handler(otherwise: (@Sendable (HTTPRequestHead) -> HTTPResponse)?) -> @Sendable (HTTPRequestHead) -> HTTPResponse {
        { request in
            guard request.target.prefix(while: { $0 != "?" }) == ArenaUDP.tokenPath else {
                return otherwise?(request) ?? .text(status: 404, "not found")
            }
            return self.respond(to: request)
        }
    }

    /// The answer to a request for ``ArenaUDP/tokenPath``.
    ///
    /// - Parameter request: The request head (its ``HTTPRequestHead/remoteHost`` is the address budgeted).
    /// - Returns: 200 with a token, 405 for another method, 429 past the address's budget, or
    ///   500 when no token could be made.
    func respond(to request: HTTPRequestHead) -> HTTPResponse {
        guard request.method == "GET" else { return .text(status: 405, "GET \(ArenaUDP.tokenPath) only") }
        let time = now()
        let isAdmitted = budget.withLock { $0.admit(request.remoteHost, now: time) }
        guard isAdmitted else {
            rateLimited.add(1, ordering: .relaxed)
            let limit = budget.withLock { $0.limit }
            var response = HTTPResponse.text(
                status: 429,
                "too many token requests from \(request.remoteHost ?? "this address"): at most \(limit) every "
                    + "\(Int(TokenRequestBudget.window)) s (arena serve --max-token-requests-per-address)")
            response.headers.add(
                name: WebSocketRefusal.headerName, value: WebSocketRefusal.headerValue(budget: Self.rateBudget, limit: limit))
            return response
        }
        let unix = UInt64(max(0, HostStateFile.wallClockMilliseconds() / 1000))
        do throws(NetcodeError) {
            let token = try ArenaUDP.guestToken(key: key, addresses: addresses(), now: unix)
            accepted.add(1, ordering: .relaxed)
            return .text(status: 200, Hex.text(token.serialized()))
        } catch {
            failed.add(1, ordering: .relaxed)
            return .text(status: 500, "could not make a token: \(error)")
        }
    }

    /// Writes `tickwire_udp_token_requests_total` by `result`: `accepted`, `rate_limited`, `failed`.
    ///
    /// - Parameter writer: The body being written.
    func writeMetrics(to writer: inout PrometheusWriter) {
        writer.counter(
            "tickwire_udp_token_requests_total", help: "GET /udp-token requests, by result.", label: "result",
            values: [
                ("accepted", accepted.load(ordering: .relaxed)), ("rate_limited", rateLimited.load(ordering: .relaxed)),
                ("failed", failed.load(ordering: .relaxed)),
            ])
    }
}
