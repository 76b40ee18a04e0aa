import Foundation
import Tickwire

extension ConformanceDecoderCommand {
    /// Reads a WebSocket vector's frames with a ``WebSocketProtocolMachine`` in the role the request
    /// names (`PROTOCOL.md` §1): the events they give and, for a server, the bytes it writes back
    /// (a client masks its answers with a fresh random key, which no vector can pin).
    static func receiveWebSocket(_ request: [String: Any]) throws -> [String: Any] {
        let role: WebSocketRole
        switch request["role"] as? String {
        case "server-receives": role = .server
        case "client-receives": role = .client
        case let other: throw RequestError(description: "unknown WebSocket role \(other ?? "none")")
        }
        let compression = request["permessageDeflate"] as? Bool == true ? PerMessageDeflateParameters() : nil
        var output: [UInt8] = []
        let events: [WebSocketEvent]
        do {
            let machine = try WebSocketProtocolMachine(role: role, compression: compression)
            events = try machine.receive(try bytes(request["bytes"]), output: &output)
        } catch let error as WebSocketError {
            return ["error": ErrorSignature.of(error)]
        }
        var answer: [String: Any] = ["events": events.map(describe)]
        if role == .server { answer["reply"] = hex(output) }
        return answer
    }

    /// An event as `Protocol/CONFORMANCE.md`'s websocket family writes it.
    static func describe(_ event: WebSocketEvent) -> [String: Any] {
        switch event {
        case .text(let text): ["kind": "text", "text": text]
        case .binary(let payload): ["kind": "binary", "payload": hex(payload)]
        case .ping(let payload): ["kind": "ping", "payload": hex(payload)]
        case .pong(let payload): ["kind": "pong", "payload": hex(payload)]
        case .close(let frame):
            ["kind": "close", "code": frame.code.map { Int($0.rawValue) } ?? NSNull(), "reason": frame.reason]
        }
    }
}
