import Tickwire

extension RefusalExplanation {
    /// Explains a matchmaker's refusal (`Protocol/MATCHMAKER.md` section 4): its status and
    /// `error` code, the budget a `Tickwire-Refusal` header names (`limit=N`), and what changes it.
    ///
    /// - Parameter error: The refusal (``MatchmakerClientError/status`` and ``MatchmakerClientError/code`` set).
    package init(matchmaker error: MatchmakerClientError) {
        let code = error.code ?? ""
        let status = error.status ?? 0
        let limit = error.budget.flatMap(Self.limitValue(in:))
        let (meaning, advice) = Self.matchmakerMeaning(code, status: status, reason: error.reason ?? "")
        self.init(kind: .matchmaker, code: status, meaning: meaning, limit: limit, advice: advice)
    }

    /// The `N` of a `Tickwire-Refusal` header's `limit=N`, or `nil`.
    static func limitValue(in header: String) -> Int? {
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if pair.count == 2, pair[0] == "limit", let value = Int(pair[1]) { return value }
        }
        return nil
    }

    /// What each `error` code of MATCHMAKER.md section 4 means to a load run, and what changes it.
    static func matchmakerMeaning(_ code: String, status: Int, reason: String) -> (String, String?) {
        switch code {
        case "tooManyRequests":
            (
                "matchmaker tooManyRequests: too many seat requests from one address",
                "spread with --source-addresses or ramp slower (--ramp)"
            )
        case "roomFull":
            ("matchmaker roomFull: the room has no free seat", "ask joinOrCreate (leave out --room) or raise the mode's capacity")
        case "noLiveProcess": ("matchmaker noLiveProcess: no live process can take a new room", "start more arena serve processes")
        case "unavailable": ("matchmaker unavailable: the directory (Redis) cannot be reached", "check the fleet's --redis")
        case "unknownMode": ("matchmaker unknownMode: the matchmaker serves no such mode", "check --mode")
        case "unauthorized": ("matchmaker unauthorized: a bearer token is required or was refused", nil)
        case "forbidden": ("matchmaker forbidden: the game's authenticate hook refused the player", nil)
        case "":
            ("matchmaker HTTP \(status)" + (reason.isEmpty ? "" : " (it says: \(reason.prefix(120)))"), nil)
        default: ("matchmaker \(code)" + (reason.isEmpty ? "" : ": \(reason.prefix(120))"), nil)
        }
    }
}
