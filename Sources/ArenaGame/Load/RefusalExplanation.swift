import Tickwire

/// What a server's refusal means and what changes it, for a person running `tickwire load`:
/// an HTTP status instead of the upgrade (with the budget and value a Tickwire server names in
/// its `Tickwire-Refusal` header), or a close code before the welcome.
///
/// ```
/// 429 too many connections from one address (limit 64): spread with --source-addresses or raise --max-connections-per-address
/// ```
package struct RefusalExplanation: Hashable, Sendable, CustomStringConvertible {
    /// Where the refusal came: the HTTP upgrade or a close after it.
    package enum Kind: String, Hashable, Sendable {
        /// A status other than 101 answered the upgrade request.
        case http
        /// The connection opened, then closed with a code before the welcome.
        case close
        /// A matchmaker refused the seat request (its HTTP status; MATCHMAKER.md section 4).
        case matchmaker
    }

    /// HTTP status or close code.
    package let kind: Kind
    /// The HTTP status, or the close code's value.
    package let code: Int
    /// What it means, in words (`too many connections from one address`).
    package let meaning: String
    /// The value of the budget that refused, when the server named it (`64`).
    package let limit: Int?
    /// What to change, naming the flag (`spread with --source-addresses or raise …`), or `nil`.
    package let advice: String?

    /// Explains a refused upgrade.
    ///
    /// - Parameter refusal: The server's answer: its status, words and named budget.
    package init(refusal: WebSocketRefusal) {
        kind = .http
        code = refusal.status
        limit = refusal.limit
        let known = Self.budgetMeaning(refusal.budget)
        if let known {
            (meaning, advice) = known
        } else {
            let (generic, advice) = Self.statusMeaning(refusal.status, reasonPhrase: refusal.reasonPhrase)
            // A server that names no budget may still say why in its body.
            meaning = refusal.body.isEmpty ? generic : "\(generic) (the server says: \(refusal.body.prefix(200)))"
            self.advice = advice
        }
    }

    /// An explanation made of its parts.
    init(kind: Kind, code: Int, meaning: String, limit: Int?, advice: String?) {
        self.kind = kind
        self.code = code
        self.meaning = meaning
        self.limit = limit
        self.advice = advice
    }

    /// Explains a close with a code before the welcome.
    ///
    /// - Parameters:
    ///   - closeCode: The code the server closed with.
    ///   - text: The reason text it sent (added to codes this type does not explain).
    package init(closeCode: CloseCode, text: String) {
        kind = .close
        code = Int(closeCode.rawValue)
        limit = nil
        let known = Self.closeMeaning(closeCode)
        if let known {
            (meaning, advice) = known
        } else {
            meaning = text.isEmpty ? "closed with \(closeCode)" : "closed with \(closeCode): \(text.prefix(123))"
            advice = nil
        }
    }

    /// `429 too many connections from one address (limit 64): spread with --source-addresses …`;
    /// a close code reads `close 4005 no hello …`.
    package var description: String {
        let head = kind == .close ? "close \(code)" : "\(code)"
        let limitText = limit.map { " (limit \($0))" } ?? ""
        return "\(head) \(meaning)\(limitText)" + (advice.map { ": \($0)" } ?? "")
    }

    /// The budgets a `WebSocketServer` names, with the `arena serve` flags that change them.
    static func budgetMeaning(_ budget: WebSocketRefusal.Budget?) -> (String, String?)? {
        switch budget {
        case .addressConnectionLimit?:
            ("too many connections from one address", "spread with --source-addresses or raise --max-connections-per-address")
        case .addressHandshakeLimit?:
            (
                "too many handshakes at once from one address",
                "spread with --source-addresses, ramp slower (--ramp) or raise --max-handshakes-per-address"
            )
        case .connectionLimit?:
            ("the server is at its connection limit", "raise it (arena serve allows --capacity × --max-rooms + 64)")
        case .handshakeEvicted?:
            ("the server's handshake places were full and this handshake was the oldest", "ramp slower (--ramp)")
        case .shuttingDown?: ("the server is shutting down", nil)
        case ArenaUDPTokenEndpoint.rateBudget?:
            (
                "too many UDP token requests from one address",
                "spread with --source-addresses, ramp slower (--ramp) or raise arena serve --max-token-requests-per-address"
            )
        default: nil
        }
    }

    /// What a status means when the server named no budget.
    static func statusMeaning(_ status: Int, reasonPhrase: String) -> (String, String?) {
        switch status {
        case 400: ("the server found the upgrade request malformed", nil)
        case 403: ("the server forbids this client (its origin or policy)", nil)
        case 404: ("nothing answers at this path", "check the URL's path")
        case 408:
            ("the upgrade request took too long to arrive", "the load generator may be overloaded: fewer --clients or a longer --ramp")
        case 426: ("the server wants another WebSocket version", nil)
        case 429: ("too many requests from one address", "spread with --source-addresses")
        case 431: ("the upgrade request's head is too large", nil)
        case 503: ("the server is unavailable", "try again later or at another server")
        default: (reasonPhrase.isEmpty ? "HTTP \(status)" : reasonPhrase.lowercased(), nil)
        }
    }

    /// What the close codes of PROTOCOL.md section 1.3 mean before a welcome.
    static func closeMeaning(_ code: CloseCode) -> (String, String?)? {
        switch code {
        case .goingAway: ("the server is shutting down", nil)
        case .policyViolation: ("the server's policy refused the session (an unknown room, a bad token)", "check the URL's room")
        case .internalServerError: ("the server could not set the session up", "see the server's log")
        case .schemaMismatch: ("the client's schema differs from the server's", "build both from the same version")
        case .roomFull: ("the room is full", "raise arena serve --capacity or spread over --rooms")
        case .kicked: ("the server kicked the client", nil)
        case .unsupportedVersion: ("the server speaks another protocol version", "build both from the same version")
        case .malformedFrame: ("the server could not decode the hello", nil)
        case .idleTimeout:
            (
                "no hello reached the server within its hello timeout",
                "the load generator may be overloaded: fewer --clients or more --drivers"
            )
        case .roomClosed: ("the room closed", nil)
        case .moved: ("the room is on another process", "give the fleet's entry URLs")
        default: nil
        }
    }
}
