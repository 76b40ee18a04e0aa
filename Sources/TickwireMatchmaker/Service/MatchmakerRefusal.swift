import TickwireFoundation
import TickwireSim
import TickwireWebSocket

/// One refusal of `Protocol/MATCHMAKER.md` section 4: its status, its `error` code and the
/// reason for a person, answered as `{"error": CODE, "reason": TEXT}`.
struct MatchmakerRefusal: Error, Hashable, Sendable {
    var status: Int
    var code: String
    var reason: String
    /// Extra header fields (`Allow`, `Retry-After`, `Tickwire-Refusal`).
    var headers = HTTPHeaders()

    /// Every `error` code the service answers, and `ok` and `preflight`: the metric's labels.
    static let codes = [
        "ok", "preflight", "badRequest", "unauthorized", "forbidden", "notFound", "unknownMode", "noOpenRoom", "unknownRoom",
        "methodNotAllowed", "roomFull", "roomLocked", "lengthRequired", "bodyTooLarge", "tooManyRequests", "noLiveProcess",
        "unavailable", "internalError",
    ]

    static func badRequest(_ reason: String) -> MatchmakerRefusal { MatchmakerRefusal(status: 400, code: "badRequest", reason: reason) }

    static func notFound(_ path: Substring) -> MatchmakerRefusal {
        MatchmakerRefusal(status: 404, code: "notFound", reason: "no such path: \(path)")
    }

    static func methodNotAllowed(_ method: String, allowed: String) -> MatchmakerRefusal {
        var refusal = MatchmakerRefusal(status: 405, code: "methodNotAllowed", reason: "\(method) is not allowed here; use \(allowed)")
        refusal.headers.add(name: "Allow", value: allowed + ", OPTIONS")
        return refusal
    }

    /// The refusal of a store's error.
    init(_ error: MatchmakingError) {
        let code =
            switch error {
            case .unknownMode: "unknownMode"
            case .noOpenRoom: "noOpenRoom"
            case .unknownRoom: "unknownRoom"
            case .roomFull: "roomFull"
            case .roomLocked: "roomLocked"
            case .noLiveProcess: "noLiveProcess"
            case .unavailable: "unavailable"
            }
        self.init(status: error.httpStatus, code: code, reason: error.description)
    }

    /// The refusal of an authenticator's error.
    init(_ error: MatchmakerAuthenticationError) {
        switch error.kind {
        case .unauthorized(let reason): self.init(status: 401, code: "unauthorized", reason: reason)
        case .forbidden(let reason): self.init(status: 403, code: "forbidden", reason: reason)
        case .store(let error): self.init(error)
        }
    }

    init(status: Int, code: String, reason: String, headers: HTTPHeaders = HTTPHeaders()) {
        self.status = status
        self.code = code
        self.reason = reason
        self.headers = headers
    }

    /// The answer: the status, the JSON body and the extra fields (the service adds CORS).
    var response: HTTPResponse {
        let body = JSONValue.object(["error": .string(code), "reason": .string(reason)])
        var fields: HTTPHeaders = ["Content-Type": "application/json"]
        fields.add(contentsOf: headers)
        return HTTPResponse(status: status, headers: fields, body: Array(body.text.utf8))
    }
}
