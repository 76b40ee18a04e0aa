import Dispatch
import TickwireFoundation
import TickwireIO
import TickwireSim

/// A client of a matchmaker's HTTP API (`Protocol/MATCHMAKER.md`): asks for a seat in a room of a
/// mode, or for the open rooms, and answers with the seat's URLs and connect token.
///
/// ```swift
/// let matchmaker = try Matchmaker(url: "http://127.0.0.1:7777")
/// let seat = try await matchmaker.joinOrCreate("arena", options: ["name": .string("ada")])
/// let client = try matchmaker.session(joining: seat, game: MyGame(), clock: MonotonicClock())
/// client.tick(input: nil)   // joins seat.room with seat.helloToken, resumes after a loss,
///                           // and asks the matchmaker again once it cannot resume
/// ```
///
/// Every request is one HTTP/1.1 exchange (over TLS for an `https` URL, checked by ``tls``) on a
/// connection of its own, made on a Dispatch queue
/// of the matchmaker's (never on the caller's executor), bounded by ``timeout`` and by
/// ``maximumResponseBodyBytes``.
public struct Matchmaker: Hashable, Sendable {
    /// The longest answer body read: 256 KiB (a seat is about 6.5 KB; a listing of every open
    /// room of a large fleet is the long one). A longer answer fails the request.
    public static let maximumResponseBodyBytes = 262_144
    /// The longest request body a matchmaker reads (MATCHMAKER.md section 1): 4096 bytes of
    /// options. Longer options are refused here, before anything is sent.
    public static let maximumRequestBodyBytes = 4096

    /// The matchmaker's URL, as given: `http://HOST:PORT` or `https://HOST:PORT`.
    public let url: String
    /// How an `https` matchmaker's certificate is checked (ignored for `http`).
    public let tls: TLSClientConfiguration
    /// The JSON Web Token sent as `Authorization: Bearer …`, or `nil` to ask as a guest.
    public let bearerToken: String?
    /// How long one request may take, from connecting to the answer's last byte.
    public let timeout: Duration
    /// The local address the requests leave from (a load tool's spread of 127.0.0.x), or `nil`
    /// for the kernel's choice.
    package var source: SocketAddress?

    package let host: String
    package let port: Int
    /// The URL's path before `/matchmake/…` and `/rooms`, without a trailing `/` (usually empty).
    package let basePath: String
    /// The URL is `https`: requests go over TLS, checked by ``tls``.
    package let isHTTPS: Bool

    /// A client of the matchmaker at `url`.
    ///
    /// - Parameters:
    ///   - url: `http://HOST:PORT` or `https://HOST:PORT` (a path is a prefix of every request's).
    ///   - bearerToken: A JSON Web Token that authenticates the player, or `nil` for a guest.
    ///   - timeout: How long one request may take.
    ///   - tls: How an `https` matchmaker's certificate is checked: by default against the
    ///     system's trust store, naming the URL's host.
    /// - Throws: ``MatchmakerClientError`` when `url` is not an `http://` or `https://` URL with a host.
    public init(
        url: String, bearerToken: String? = nil, timeout: Duration = .seconds(5), tls: TLSClientConfiguration = TLSClientConfiguration()
    ) throws(MatchmakerClientError) {
        self.url = url
        self.bearerToken = bearerToken
        self.timeout = timeout
        self.tls = tls
        let scheme = ["http://", "https://"].first { url.lowercased().hasPrefix($0) }
        guard let scheme else { throw MatchmakerClientError(.invalidURL(url, words: "it does not start with http:// or https://")) }
        isHTTPS = scheme == "https://"
        let rest = url.dropFirst(scheme.count)
        let authority = rest.prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        var path = String(rest.dropFirst(authority.count).prefix { $0 != "?" && $0 != "#" })
        while path.hasSuffix("/") { path.removeLast() }
        basePath = path
        var hostPart = Substring(authority)
        var portText: Substring?
        if hostPart.hasPrefix("[") {
            // An IPv6 literal: [::1]:7777.
            guard let close = hostPart.firstIndex(of: "]") else {
                throw MatchmakerClientError(.invalidURL(url, words: "an IPv6 host without ']'"))
            }
            let after = hostPart[hostPart.index(after: close)...]
            if after.hasPrefix(":") {
                portText = after.dropFirst()
            } else if !after.isEmpty {
                throw MatchmakerClientError(.invalidURL(url, words: "text after the IPv6 host"))
            }
            hostPart = hostPart[hostPart.index(after: hostPart.startIndex)..<close]
        } else if let colon = hostPart.lastIndex(of: ":") {
            portText = hostPart[hostPart.index(after: colon)...]
            hostPart = hostPart[..<colon]
        }
        guard !hostPart.isEmpty, !hostPart.contains("@") else { throw MatchmakerClientError(.invalidURL(url, words: "no host")) }
        host = String(hostPart)
        if let portText {
            guard let port = Int(portText), (1...65_535).contains(port) else {
                throw MatchmakerClientError(.invalidURL(url, words: "the port '\(portText)' is not 1...65535"))
            }
            self.port = port
        } else {
            port = isHTTPS ? 443 : 80
        }
    }

    /// What a seat request asks for (MATCHMAKER.md section 1).
    package enum SeatRequest: Hashable, Sendable {
        /// A seat in the fullest open room of the mode, or in a new room.
        case joinOrCreate(mode: String)
        /// A seat in the fullest open room of the mode; none is made.
        case join(mode: String)
        /// The first seat of a new room of the mode.
        case create(mode: String)
        /// A seat in the named room.
        case joinByID(room: String)

        /// The request's path after `/matchmake/`, its name checked.
        func path() throws(MatchmakerClientError) -> String {
            switch self {
            case .joinOrCreate(let mode): "joinOrCreate/" + (try Self.checked(mode, limit: 32, what: "mode"))
            case .join(let mode): "join/" + (try Self.checked(mode, limit: 32, what: "mode"))
            case .create(let mode): "create/" + (try Self.checked(mode, limit: 32, what: "mode"))
            case .joinByID(let room): "joinById/" + (try Self.checked(room, limit: 64, what: "room"))
            }
        }

        /// `name` when it is 1 to `limit` ASCII letters, digits, `-` and `_` (MATCHMAKER.md section 1).
        static func checked(_ name: String, limit: Int, what: String) throws(MatchmakerClientError) -> String {
            guard (1...limit).contains(name.utf8.count), name.utf8.allSatisfy(Matchmaker.isNameByte) else {
                throw MatchmakerClientError(
                    .invalidRequest("the \(what) '\(name.prefix(80))' is not 1 to \(limit) ASCII letters, digits, '-' and '_'"))
            }
            return name
        }
    }

    static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
            UInt8(ascii: "-"), UInt8(ascii: "_"):
            true
        default: false
        }
    }

    /// A seat in the fullest open room of `mode` with one free, or in a new room
    /// (`POST /matchmake/joinOrCreate/{mode}`).
    ///
    /// - Parameters:
    ///   - mode: The mode: 1 to 32 ASCII letters, digits, `-` and `_`.
    ///   - options: The options sent as the JSON body (`"name"`, or the game's own).
    /// - Returns: The seat.
    /// - Throws: ``MatchmakerClientError``: the matchmaker's refusal, or why it could not be asked.
    public func joinOrCreate(_ mode: String, options: [String: JSONValue] = [:]) async throws(MatchmakerClientError) -> MatchmakerSeat {
        try await seat(.joinOrCreate(mode: mode), options: options)
    }

    /// A seat in the fullest open room of `mode` with one free; the matchmaker makes none
    /// (`POST /matchmake/join/{mode}`: `404 noOpenRoom` when none has a seat).
    ///
    /// - Parameters:
    ///   - mode: The mode.
    ///   - options: The options sent as the JSON body.
    /// - Returns: The seat.
    /// - Throws: ``MatchmakerClientError``: the matchmaker's refusal, or why it could not be asked.
    public func join(_ mode: String, options: [String: JSONValue] = [:]) async throws(MatchmakerClientError) -> MatchmakerSeat {
        try await seat(.join(mode: mode), options: options)
    }

    /// The first seat of a new room of `mode` (`POST /matchmake/create/{mode}`; the option
    /// `"private": true` leaves the room out of ``rooms(mode:)``).
    ///
    /// - Parameters:
    ///   - mode: The mode.
    ///   - options: The options sent as the JSON body.
    /// - Returns: The seat.
    /// - Throws: ``MatchmakerClientError``: the matchmaker's refusal, or why it could not be asked.
    public func create(_ mode: String, options: [String: JSONValue] = [:]) async throws(MatchmakerClientError) -> MatchmakerSeat {
        try await seat(.create(mode: mode), options: options)
    }

    /// A seat in the room named `room`, a private room too (`POST /matchmake/joinById/{room}`).
    ///
    /// - Parameters:
    ///   - room: The room: 1 to 64 ASCII letters, digits, `-` and `_`.
    ///   - options: The options sent as the JSON body.
    /// - Returns: The seat.
    /// - Throws: ``MatchmakerClientError``: the matchmaker's refusal (`404 unknownRoom`,
    ///   `409 roomFull`, `409 roomLocked`…), or why it could not be asked.
    public func joinByID(_ room: String, options: [String: JSONValue] = [:]) async throws(MatchmakerClientError) -> MatchmakerSeat {
        try await seat(.joinByID(room: room), options: options)
    }

    /// The public open rooms the matchmaker made, fullest first (`GET /rooms`).
    ///
    /// - Parameter mode: One mode's rooms, or `nil` for every mode's.
    /// - Returns: The listings.
    /// - Throws: ``MatchmakerClientError``: the matchmaker's refusal, or why it could not be asked.
    public func rooms(mode: String? = nil) async throws(MatchmakerClientError) -> [RoomListing] {
        let matchmaker = self
        return try await Self.offExecutor { () throws(MatchmakerClientError) in try matchmaker.roomsNow(mode: mode) }
    }

    /// Asks for a seat, on the matchmaker's queue.
    package func seat(_ request: SeatRequest, options: [String: JSONValue]) async throws(MatchmakerClientError) -> MatchmakerSeat {
        let matchmaker = self
        return try await Self.offExecutor { () throws(MatchmakerClientError) in try matchmaker.seatNow(request, options: options) }
    }

    /// Asks for a seat, blocking the calling thread up to ``timeout`` (a session's driving
    /// thread that asks again, a load tool's worker).
    package func seatNow(_ request: SeatRequest, options: [String: JSONValue]) throws(MatchmakerClientError) -> MatchmakerSeat {
        let body = Array(JSONValue.object(options).text.utf8)
        guard body.count <= Self.maximumRequestBodyBytes else {
            throw MatchmakerClientError(
                .invalidRequest(
                    "the options are \(body.count) bytes of JSON, over the matchmaker's \(Self.maximumRequestBodyBytes) (Matchmaker.maximumRequestBodyBytes)"
                ))
        }
        let response = try exchange(method: "POST", path: "/matchmake/" + (try request.path()), body: body)
        let json = try Self.answer(response)
        do throws(MatchmakerAnswerError) {
            return try MatchmakerSeat(json: json)
        } catch {
            throw MatchmakerClientError(.invalidAnswer(status: response.status, words: error.words))
        }
    }

    /// Lists the rooms, blocking the calling thread up to ``timeout``.
    package func roomsNow(mode: String?) throws(MatchmakerClientError) -> [RoomListing] {
        var path = "/rooms"
        if let mode { path += "?mode=" + (try SeatRequest.checked(mode, limit: 32, what: "mode")) }
        let response = try exchange(method: "GET", path: path, body: [])
        let json = try Self.answer(response)
        do throws(MatchmakerAnswerError) {
            return try Self.listings(json)
        } catch {
            throw MatchmakerClientError(.invalidAnswer(status: response.status, words: error.words))
        }
    }

    /// One HTTP exchange with the matchmaker.
    private func exchange(method: String, path: String, body: [UInt8]) throws(MatchmakerClientError) -> HTTPExchangeResponse {
        var exchange = HTTPExchange(method: method, host: host, port: port, path: basePath + path)
        exchange.headers = [HTTPExchangeHeader("Accept", "application/json")]
        if method == "POST" { exchange.headers.append(HTTPExchangeHeader("Content-Type", "application/json")) }
        if let bearerToken { exchange.headers.append(HTTPExchangeHeader("Authorization", "Bearer \(bearerToken)")) }
        exchange.body = body
        exchange.timeout = timeout
        exchange.maximumBodyBytes = Self.maximumResponseBodyBytes
        exchange.source = source
        exchange.tls = isHTTPS ? tls : nil
        do throws(HTTPExchangeError) {
            return try exchange.run()
        } catch {
            throw MatchmakerClientError(.exchange(error))
        }
    }

    /// A `200 OK` answer's JSON, or the refusal any other status is (MATCHMAKER.md section 4).
    static func answer(_ response: HTTPExchangeResponse) throws(MatchmakerClientError) -> JSONValue {
        let json: JSONValue?
        do throws(JSONError) {
            json = try JSONParser.parse(response.body)
        } catch {
            if response.status != 200 { try refusal(response, json: nil) }
            throw MatchmakerClientError(.invalidAnswer(status: 200, words: "the body is not JSON: \(error)"))
        }
        guard response.status == 200, let json else { try refusal(response, json: json) }
        return json
    }

    /// The refusal an answer other than `200` is: its JSON's `error` and `reason`, or (an HTTP
    /// layer's plain-text answer) a code from the status and the body's text.
    private static func refusal(_ response: HTTPExchangeResponse, json: JSONValue?) throws(MatchmakerClientError) -> Never {
        let retryAfter = response.header("Retry-After")
        let budget = response.header("Tickwire-Refusal")
        if let code = json?["error"]?.stringValue {
            throw .refused(
                status: response.status, code: code, reason: json?["reason"]?.stringValue ?? "", retryAfter: retryAfter, budget: budget)
        }
        let text = String(decoding: response.body.prefix(400), as: UTF8.self)
        let code =
            switch response.status {
            case 411: "lengthRequired"
            case 413: "bodyTooLarge"
            default: ""
            }
        throw .refused(status: response.status, code: code, reason: text, retryAfter: retryAfter, budget: budget)
    }

    /// The listings of a `GET /rooms` answer (MATCHMAKER.md section 3).
    static func listings(_ json: JSONValue) throws(MatchmakerAnswerError) -> [RoomListing] {
        guard case .array(let rooms) = json["rooms"] else { throw MatchmakerAnswerError("'rooms' is not an array") }
        var listings: [RoomListing] = []
        listings.reserveCapacity(rooms.count)
        for (index, room) in rooms.enumerated() {
            guard case .object = room else { throw MatchmakerAnswerError("rooms[\(index)] is not an object") }
            let name = try room.requiredString("room")
            let mode = try room.requiredString("mode")
            guard let clients = room["clients"]?.integerValue, clients >= 0, clients <= Int64(Int32.max) else {
                throw MatchmakerAnswerError("rooms[\(index)].clients is not a count")
            }
            guard let capacity = room["capacity"]?.integerValue, capacity >= 0, capacity <= Int64(Int32.max) else {
                throw MatchmakerAnswerError("rooms[\(index)].capacity is not a count")
            }
            var metadata: [String: String] = [:]
            switch room["metadata"] {
            case .none, .some(.null): break
            case .some(.object(let members)):
                for (key, value) in members {
                    guard let text = value.stringValue else {
                        throw MatchmakerAnswerError("rooms[\(index)].metadata.\(key) is not a string")
                    }
                    metadata[key] = text
                }
            case .some: throw MatchmakerAnswerError("rooms[\(index)].metadata is not an object")
            }
            listings.append(RoomListing(room: name, mode: mode, clients: Int(clients), capacity: Int(capacity), metadata: metadata))
        }
        return listings
    }

    /// The queue the blocking exchanges run on: concurrent, so that requests do not wait on one another.
    private static let queue = DispatchQueue(label: "tickwire.matchmaker", attributes: .concurrent)

    /// Runs `work` (which blocks on its exchange) on ``queue`` and resumes the caller with its
    /// result, so that no thread of the caller's executor waits on the network.
    static func offExecutor<T: Sendable>(
        _ work: @escaping @Sendable () throws(MatchmakerClientError) -> T
    ) async throws(MatchmakerClientError) -> T {
        let result = await withCheckedContinuation { (continuation: CheckedContinuation<Result<T, MatchmakerClientError>, Never>) in
            queue.async {
                do throws(MatchmakerClientError) {
                    continuation.resume(returning: .success(try work()))
                } catch {
                    continuation.resume(returning: .failure(error))
                }
            }
        }
        return try result.get()
    }
}
