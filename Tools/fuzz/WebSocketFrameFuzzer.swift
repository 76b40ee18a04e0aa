// Not part of the Swift package: built by `Tools/fuzz/run websocket-frame SECONDS` with -sanitize=fuzzer,address.

import TickwireWebSocket

/// libFuzzer entry for the WebSocket frame parser and message reassembly: the input's first
/// byte picks a configuration (bit 0 the role, bit 1 permessage-deflate, bits 2-3 its context
/// takeover, bits 4-7 the chunk size), the rest is fed to a ``WebSocketProtocolMachine`` in
/// chunks. Any crash, hang or sanitizer report is a bug; a thrown ``WebSocketError`` is the
/// expected outcome for bad input.
@_cdecl("LLVMFuzzerTestOneInput")
public func webSocketFrameFuzzerTestOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let selector = data[0]
    let role: WebSocketRole = selector & 1 == 0 ? .server : .client
    let compression: PerMessageDeflateParameters? = selector & 2 == 0 ? nil
        : PerMessageDeflateParameters(serverNoContextTakeover: selector & 4 != 0, clientNoContextTakeover: selector & 8 != 0)
    let chunk = Int(selector >> 4) * 7 + 1
    let limits = WebSocketLimits(maximumFramePayloadBytes: 1 << 16, maximumMessageBytes: 1 << 17)
    guard let machine = try? WebSocketProtocolMachine(role: role, configuration: .init(limits: limits), compression: compression) else {
        return 0
    }
    let input = UnsafeRawBufferPointer(start: data + 1, count: size - 1)
    var output: [UInt8] = []
    var offset = 0
    while offset < input.count {
        let end = min(input.count, offset + chunk)
        do {
            try machine.receive(UnsafeRawBufferPointer(rebasing: input[offset ..< end]), output: &output) { event in
                if case .binary(let bytes) = event, bytes.count > limits.maximumMessageBytes {
                    fatalError("a message of \(bytes.count) bytes passed the limit of \(limits.maximumMessageBytes)")
                }
            }
        } catch {
            break
        }
        offset = end
    }
    return 0
}
