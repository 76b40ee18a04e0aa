import Tickwire

extension RefusalExplanation {
    /// Explains a token endpoint's refusal (`arena serve`'s `GET /udp-token`): its status, and the
    /// budget and value a `Tickwire-Refusal` header names (``ArenaUDPTokenEndpoint/rateBudget``).
    ///
    /// - Parameters:
    ///   - status: The HTTP status.
    ///   - response: The response's head and the start of its body.
    package init(tokenStatus status: Int, response: [UInt8]) {
        let parsed: (HTTPResponseHead, Int)?
        do {
            parsed = try HTTPResponseHead.parse(response)
        } catch {
            parsed = nil
        }
        guard let (head, byteCount) = parsed else {
            self.init(refusal: WebSocketRefusal(status: status, reasonPhrase: "", body: "its head did not parse"))
            return
        }
        self.init(refusal: WebSocketRefusal(head: head, body: response.dropFirst(byteCount)))
    }
}
