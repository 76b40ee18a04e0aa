// Not part of the Swift package: built by `Tools/fuzz/run websocket-frame SECONDS` with -sanitize=fuzzer,address.

import TickwireWebSocket

/// libFuzzer entry for the WebSocket frame parser and message reassembly: the input's first
/// byte picks a configuration (bit 0 the role, bit 1 permessage-deflate, bits 2-3 its context
/// takeover, bits 4-7 the chunk size), the rest is fed to a ``WebSocketProtocolMachine`` in
/// chunks. Any crash, hang or sanitizer report is a bug; a thrown ``WebSocketError`` is the
/// expected outcome for bad input.
///
/// Differential check: two more machines get the same bytes, one in a single call (where the
/// whole-frame path decodes every complete small frame) and one byte by byte (the general
/// decoder only). Their events and errors must be the same, and for a server (whose replies
/// are not masked with random keys) their replies too; with permessage-deflate, the events and
/// whether they failed.
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
    compareWholeAndByteByByte(input, role: role, compression: compression, limits: limits)
    return 0
}

/// Feeds `input` to one machine in a single call and to another byte by byte; stops the fuzzer
/// with `fatalError` when they disagree.
func compareWholeAndByteByByte(_ input: UnsafeRawBufferPointer, role: WebSocketRole,
                               compression: PerMessageDeflateParameters?, limits: WebSocketLimits) {
    func run(chunk: Int) -> (events: [WebSocketEvent], output: [UInt8], error: WebSocketError?)? {
        guard let machine = try? WebSocketProtocolMachine(role: role, configuration: .init(limits: limits), compression: compression) else {
            return nil
        }
        var events: [WebSocketEvent] = []
        var output: [UInt8] = []
        var offset = 0
        while offset < input.count {
            let end = min(input.count, offset + chunk)
            do {
                try machine.receive(UnsafeRawBufferPointer(rebasing: input[offset ..< end]), output: &output) { events.append($0) }
            } catch {
                return (events, output, error)
            }
            offset = end
        }
        return (events, output, nil)
    }
    guard let whole = run(chunk: max(1, input.count)), let bytewise = run(chunk: 1) else { return }
    // With permessage-deflate, which of two faults in one message is met first may depend on the
    // chunking (an inflater fed byte by byte yields invalid UTF-8 before it reaches corrupt data
    // that a whole read meets first): only whether the connection failed must agree.
    let sameError = compression == nil ? whole.error == bytewise.error : (whole.error == nil) == (bytewise.error == nil)
    if whole.events != bytewise.events || !sameError || (role == .server && compression == nil && whole.output != bytewise.output) {
        fatalError("one read and byte by byte disagree: \(whole.events.count) vs \(bytewise.events.count) events, "
                   + "\(String(describing: whole.error)) vs \(String(describing: bytewise.error))")
    }
}
