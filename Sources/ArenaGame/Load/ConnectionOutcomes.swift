import Tickwire

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Why many clients' attempts to join did not succeed, counted by cause: what `tickwire load`
/// reports instead of a bare "N failed".
///
/// Three kinds of failure are kept apart: a hello the server refused (by
/// ``Message/Reject/Reason``, such as room full or schema mismatch); a connection the server
/// refused before the hello, explained (``RefusalExplanation``: an HTTP status such as 429
/// with the budget and value the server named, or a close code); and a connection that failed
/// without an answer from the server (by ``Failure``: the TCP connect refused, the WebSocket
/// handshake broken, a timeout). Each attempt is counted once, so a client that retries adds
/// one per attempt.
package struct ConnectionOutcomes: Hashable, Sendable {
    /// How a connection failed before the server could answer its hello.
    package enum Failure: String, Hashable, Sendable, CaseIterable, CustomStringConvertible {
        /// Nothing listens at the address: the TCP connect was refused (`ECONNREFUSED`).
        case connectionRefused = "connection refused"
        /// The TCP connect failed for another reason (unreachable, reset, out of descriptors).
        case connectFailed = "connect failed"
        /// The host name did not resolve.
        case unresolved = "host not resolved"
        /// The WebSocket handshake failed: the server closed the connection or answered
        /// with something other than a `101` this client accepts.
        case handshakeFailed = "handshake failed"
        /// No WebSocket connection opened within the client's handshake timeout.
        case handshakeTimeout = "handshake timed out"
        /// The WebSocket opened but no welcome or refusal came within the tool's patience.
        case noWelcome = "no welcome"
        /// The connection closed after the handshake, before the welcome.
        case closedBeforeWelcome = "closed before the welcome"
        /// UDP: no token came from the server's token endpoint (nothing listens there, it timed
        /// out, or its answer was no token); a refusal with a status is explained instead.
        case tokenFetchFailed = "no connect token"
        /// No seat from the matchmaker (`tickwire load --matchmaker`): it could not be reached, did
        /// not answer in time, or broke the contract (a refusal is explained instead).
        case matchmakerFailed = "no seat from the matchmaker"
        /// UDP: netcode.io denied the connection: every server the token named was full (256
        /// slots each), or the last one tried was and the others did not answer.
        case netcodeDenied = "netcode.io connection denied"
        /// UDP: netcode.io's connection request or response went unanswered until it timed out.
        case netcodeTimedOut = "netcode.io handshake timed out"
        /// UDP: the connect token expired or was refused as invalid before netcode.io connected.
        case netcodeTokenRefused = "netcode.io token expired or invalid"
        /// Anything else (for example a client that could not be created).
        case other = "other"

        /// The failure's name, as the report prints it.
        package var description: String { rawValue }

        /// Classifies why a connection that never got its welcome closed.
        ///
        /// The WebSocket client ends a failed attempt without a close code (a lost connection)
        /// and with words naming the cause (see `WebSocketClient`); a close with a code came
        /// from the server after the handshake.
        ///
        /// - Parameter closeReason: Why the connection closed, or `nil` when it is not known.
        /// - Returns: The kind of failure.
        package static func classifying(_ closeReason: TransportCloseReason?) -> Failure {
            guard let closeReason else { return .other }
            guard closeReason.code == nil else { return .closedBeforeWelcome }
            let reason = closeReason.text
            if reason.hasPrefix("netcode.io: ") {
                let state = reason.dropFirst("netcode.io: ".count)
                if state == "\(NetcodeClientState.connectionDenied)" { return .netcodeDenied }
                if state.hasSuffix("timed out") { return .netcodeTimedOut }
                if state.contains("connect token") { return .netcodeTokenRefused }
            }
            if reason.hasPrefix("no open connection within") { return .handshakeTimeout }
            if reason.hasPrefix("handshake refused") || reason.hasPrefix("the handshake response")
                || reason.hasPrefix("the connection closed during the handshake") || reason.hasPrefix("cannot set up the connection")
            {
                return .handshakeFailed
            }
            if reason.hasPrefix("cannot resolve") || reason.hasSuffix("has no address") { return .unresolved }
            if reason.contains("(errno \(ECONNREFUSED))") { return .connectionRefused }
            if reason.contains("(errno ") { return .connectFailed }
            return .other
        }
    }

    /// Refused hellos by the server's reason.
    package private(set) var refusals: [Message.Reject.Reason: Int] = [:]
    /// Connection attempts that failed before the hello was answered, by kind.
    package private(set) var failures: [Failure: Int] = [:]
    /// Connections the server refused before the hello (an HTTP status, a close code), explained.
    package private(set) var explained: [RefusalExplanation: Int] = [:]
    /// Players that gave up after their ``RefusedRetries`` ran out (each counted once).
    package private(set) var gaveUp = 0
    /// The retries each player had after refusals (``RefusedRetries/limit``), which the hint names.
    package var refusedRetries = RefusedRetries.defaultLimit

    /// Creates empty counts.
    package init() {}

    /// Counts one hello the server refused.
    ///
    /// - Parameter reason: The reason in the server's reject message.
    package mutating func recordRefusal(_ reason: Message.Reject.Reason) { refusals[reason, default: 0] += 1 }

    /// Counts one connection attempt that failed before its hello was answered.
    ///
    /// - Parameter failure: How it failed.
    package mutating func recordFailure(_ failure: Failure) { failures[failure, default: 0] += 1 }

    /// Counts one connection the server refused before its hello was answered.
    ///
    /// - Parameter explanation: The refusal, explained.
    package mutating func recordRefusal(_ explanation: RefusalExplanation) { explained[explanation, default: 0] += 1 }

    /// Counts one player that gave up after its refused attempts ran out its ``RefusedRetries``.
    package mutating func recordGaveUp() { gaveUp += 1 }

    /// Adds another tally's counts to this one.
    ///
    /// - Parameter other: The counts to add (another driver thread's, say).
    package mutating func merge(_ other: ConnectionOutcomes) {
        for (reason, count) in other.refusals { refusals[reason, default: 0] += count }
        for (failure, count) in other.failures { failures[failure, default: 0] += count }
        for (explanation, count) in other.explained { explained[explanation, default: 0] += count }
        gaveUp += other.gaveUp
    }

    /// Refused hellos in all.
    package var refusalCount: Int { refusals.values.reduce(0, +) }
    /// Failed connection attempts in all.
    package var failureCount: Int { failures.values.reduce(0, +) }
    /// Connections refused before the hello, in all.
    package var explainedCount: Int { explained.values.reduce(0, +) }

    /// The refusals as `room full ×168, schema mismatch ×2` (most first), or `none`.
    package var refusalsText: String {
        Self.listText(refusals.map { ($0.key.description, $0.value) })
    }

    /// The connection failures as `connection refused ×40, handshake timed out ×2`, or `none`.
    package var failuresText: String {
        Self.listText(failures.map { ($0.key.description, $0.value) })
    }

    /// The refusals before the hello as `429 too many connections from one address (limit 64):
    /// spread with … ×825` (most first), or `none`.
    package var explainedText: String {
        Self.listText(explained.map { ($0.key.description, $0.value) })
    }

    /// Advice for the person running the load, one `hint: ` line per cause (most frequent
    /// first), or `nil` when nothing was refused.
    ///
    /// - Parameters:
    ///   - clients: How many clients the run started.
    ///   - rooms: How many rooms they were spread over.
    /// - Returns: For full rooms, a sentence naming `arena serve --capacity` and `--rooms` with
    ///   numbers that would have fitted every client; for each refusal before the hello, its
    ///   explanation, and for a per-address budget a `--source-addresses` range that fits; for
    ///   netcode.io's denials, its client limit and `arena serve --udp-servers`; for players
    ///   that gave up, `--refused-retries`.
    package func hint(clients: Int, rooms: Int) -> String? {
        var lines: [String] = []
        if let full = refusals[.roomFull], full > 0 {
            let rooms = max(rooms, 1)
            let perRoom = (clients + rooms - 1) / rooms
            let refused = full == 1 ? "1 client was" : "\(full) clients were"
            lines.append(
                "hint: \(refused) refused because the room was full: start the server with more capacity "
                    + "(`arena serve\(rooms > 1 ? " --rooms \(rooms)" : "") --capacity \(perRoom)`) "
                    + "or spread clients over rooms (`arena serve --rooms N` and `tickwire load --rooms N`)")
        }
        if let denied = failures[.netcodeDenied], denied > 0 {
            let attempts = denied == 1 ? "1 attempt was" : "\(denied) attempts were"
            lines.append(
                "hint: \(attempts) denied by netcode.io: every UDP server the token named was full (one holds at most "
                    + "\(Netcode.maxClients) clients, netcode.io's limit); start the server with more "
                    + "(`arena serve --udp-servers N`, up to \(Netcode.maxServersPerConnect) a process) or more server processes")
        }
        if gaveUp > 0 {
            let players = gaveUp == 1 ? "1 player gave up" : "\(gaveUp) players gave up"
            lines.append(
                "hint: \(players) after \(refusedRetries + 1) refused attempts each "
                    + "(the first and \(refusedRetries) retries: `tickwire load --refused-retries N`)")
        }
        let causes = explained.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.description < $1.key.description }
        for (explanation, count) in causes {
            let attempts = count == 1 ? "1 attempt was" : "\(count) attempts were"
            var line = "hint: \(attempts) refused with \(explanation)"
            if explanation.kind == .http, explanation.code == 429, let limit = explanation.limit {
                line += " (for example `--source-addresses \(Self.sourceRange(clients: clients, limit: limit))`)"
            }
            lines.append(line)
        }
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }

    /// A loopback range from 127.0.0.2 with enough addresses for `clients` when each carries at
    /// most half of a per-address `limit` (and no more than the default share).
    static func sourceRange(clients: Int, limit: Int) -> String {
        let share = max(1, min(limit / 2, SourceAddressList.defaultClientsPerAddress))
        let count = min(max(1, (clients + share - 1) / share), SourceAddressList.maximumCount)
        let first = SourceAddressList.defaultFirstAddress
        return "\(SourceAddressList.ipv4Text(first))-\(SourceAddressList.ipv4Text(first + UInt32(count - 1)))"
    }

    /// The counts and the hint as JSON object members:
    /// `"refusals":{"room full":168},"connectionFailures":{},"refusedBeforeHello":[…],"gaveUp":0,"hint":"…"`
    /// (`null` when none), keyed by the names the text report prints, most first.
    ///
    /// `refusedBeforeHello` holds one object per explained refusal, most first:
    /// `{"kind":"http","status":429,"meaning":"too many connections from one address","limit":64,
    /// "advice":"spread with …","count":825,"text":"429 too many … (limit 64): spread with …"}`;
    /// a close code has `"kind":"close","closeCode":4005` instead of `status`; `limit` and
    /// `advice` are `null` when unknown.
    ///
    /// - Parameters:
    ///   - clients: How many clients the run started.
    ///   - rooms: How many rooms they were spread over.
    /// - Returns: Members to splice into a JSON object.
    package func jsonMembers(clients: Int, rooms: Int) -> String {
        func object(_ pairs: [(String, Int)]) -> String {
            "{" + Self.sorted(pairs).map { "\(Self.jsonString($0.0)):\($0.1)" }.joined(separator: ",") + "}"
        }
        return "\"refusals\":\(object(refusals.map { ($0.key.description, $0.value) })),"
            + "\"connectionFailures\":\(object(failures.map { ($0.key.description, $0.value) })),"
            + "\"refusedBeforeHello\":\(explainedJSON),\"gaveUp\":\(gaveUp),"
            + "\"hint\":\(hint(clients: clients, rooms: rooms).map(Self.jsonString) ?? "null")"
    }

    /// The explained refusals as a JSON array, most first (see ``jsonMembers(clients:rooms:)``).
    var explainedJSON: String {
        let sorted = explained.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key.description < $1.key.description }
        let objects = sorted.map { explanation, count in
            let codeMember = explanation.kind != .close ? "\"status\":\(explanation.code)" : "\"closeCode\":\(explanation.code)"
            return "{\"kind\":\"\(explanation.kind.rawValue)\",\(codeMember),\"meaning\":\(Self.jsonString(explanation.meaning)),"
                + "\"limit\":\(explanation.limit.map(String.init) ?? "null"),"
                + "\"advice\":\(explanation.advice.map(Self.jsonString) ?? "null"),\"count\":\(count),"
                + "\"text\":\(Self.jsonString(explanation.description))}"
        }
        return "[" + objects.joined(separator: ",") + "]"
    }

    /// `text` as a JSON string literal (quotes, backslashes and control characters escaped).
    package static func jsonString(_ text: String) -> String {
        var escaped = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": escaped += "\\\""
            case "\\": escaped += "\\\\"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                escaped += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: escaped.unicodeScalars.append(scalar)
            }
        }
        return escaped + "\""
    }

    /// Most first, then by name, so that the output is stable.
    private static func sorted(_ pairs: [(String, Int)]) -> [(String, Int)] {
        pairs.sorted { $0.1 != $1.1 ? $0.1 > $1.1 : $0.0 < $1.0 }
    }

    private static func listText(_ pairs: [(String, Int)]) -> String {
        pairs.isEmpty ? "none" : sorted(pairs).map { "\($0.0) ×\($0.1)" }.joined(separator: ", ")
    }
}
