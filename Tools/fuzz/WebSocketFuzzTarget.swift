// libFuzzer entry point for the WebSocket protocol core: the input's first byte picks a
// configuration (role, permessage-deflate, chunk size), the rest is fed to a
// WebSocketProtocolMachine in chunks. Any crash, hang or sanitizer report is a bug; a
// thrown WebSocketError is the expected outcome for bad input.
// Build and run with Tools/fuzz/run-websocket-fuzzer.sh.

@_cdecl("LLVMFuzzerTestOneInput")
public func webSocketFuzzTarget(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
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
            try machine.receive(UnsafeRawBufferPointer(rebasing: input[offset ..< end]), output: &output) { _ in }
        } catch {
            break
        }
        offset = end
    }
    // Also exercise the HTTP head and extension parsers on the same bytes.
    _ = try? HTTPRequestHead.parse(input, limits: HTTPHeadLimits(maximumHeadBytes: 4096, maximumHeaderCount: 32))
    _ = WebSocketExtensionElement.parseList(String(decoding: input.prefix(512), as: UTF8.self))
    return 0
}
