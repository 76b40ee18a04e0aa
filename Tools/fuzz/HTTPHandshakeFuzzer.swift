// Not part of the Swift package: built by `Tools/fuzz/run http-handshake SECONDS` with -sanitize=fuzzer,address.

import TickwireWebSocket

/// The client handshake every input's response is checked against (a fixed key, so that a
/// corpus entry carrying the right `Sec-WebSocket-Accept` reaches the extension negotiation).
let handshakeFuzzerClient = WebSocketClientHandshake(
    host: "127.0.0.1:9000", path: "/", subprotocols: ["tickwire.v1"],
    compression: PerMessageDeflateConfiguration(), keyBytes: Array(0 ..< 16)
)

/// libFuzzer entry for the HTTP upgrade handshake: bit 0 of the first byte says whether the
/// rest is a request (parsed, then validated by ``WebSocketServerHandshake/accept(_:configuration:)``)
/// or a response (parsed, then validated by ``WebSocketClientHandshake/validate(_:)``); the
/// extension-list parser also reads the bytes as a header value. Parsing must respect the head
/// limits and never crash; a thrown ``WebSocketHandshakeError`` is the expected outcome.
@_cdecl("LLVMFuzzerTestOneInput")
public func httpHandshakeFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let limits = HTTPHeadLimits(maximumHeadBytes: 4096, maximumHeaderCount: 32)
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    if data[0] & 1 == 0 {
        if let (head, count) = try? HTTPRequestHead.parse(input, limits: limits) {
            if count > limits.maximumHeadBytes || count > input.count {
                fatalError("a request head of \(count) bytes from \(input.count) passed the limit \(limits.maximumHeadBytes)")
            }
            let configuration = WebSocketServerHandshake.Configuration(
                subprotocols: ["tickwire.v1"], compression: PerMessageDeflateConfiguration()
            )
            _ = try? WebSocketServerHandshake.accept(head, configuration: configuration)
        }
    } else {
        if let (head, count) = try? HTTPResponseHead.parse(input, limits: limits) {
            if count > limits.maximumHeadBytes || count > input.count {
                fatalError("a response head of \(count) bytes from \(input.count) passed the limit \(limits.maximumHeadBytes)")
            }
            _ = try? handshakeFuzzerClient.validate(head)
        }
    }
    _ = WebSocketExtensionElement.parseList(String(decoding: input.prefix(512), as: UTF8.self))
    return 0
}
