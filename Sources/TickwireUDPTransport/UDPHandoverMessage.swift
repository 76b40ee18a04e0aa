import TickwireNetcode

/// The UDP transport's handover message (PROTOCOL.md 1A.11): a netcode.io connect token for
/// another process of the fleet, sent by a server on the reliable-ordered channel just before a
/// reject with reason redirect or a disconnect with reason moved whose URL is that process's
/// `udp://HOST:PORT`. Type byte 0x80 (the compressed flag over the reserved message type 0, which
/// no frame has), then the token's `Netcode.connectTokenBytes` (2048) bytes in netcode.io's
/// public format.
///
/// `package`, not public: `tickwire conformance-decoder` reads `Protocol/vectors/udp` with it.
package struct UDPHandoverMessage: Hashable, Sendable {
    /// The first byte of a handover message.
    package static let typeByte: UInt8 = 0x80

    /// The connect token for the other process.
    package var token: ConnectToken

    /// Whether `message` is a handover message rather than a frame.
    static func isHandoverMessage(_ message: [UInt8]) -> Bool { message.first == typeByte }

    /// The message's bytes: the type byte and the serialized token.
    var encoded: [UInt8] { [Self.typeByte] + token.serialized() }

    /// Reads a handover message.
    ///
    /// - Parameter bytes: A message whose first byte is ``typeByte``.
    /// - Returns: The message, or `nil` when it is not the type byte and exactly one token that parses.
    package init?(decoding bytes: [UInt8]) {
        guard bytes.count == 1 + Netcode.connectTokenBytes, bytes[0] == Self.typeByte else { return nil }
        do throws(NetcodeError) {
            token = try ConnectToken(bytes: Array(bytes[1...]))
        } catch {
            return nil
        }
    }

    /// A handover message carrying `token`.
    init(token: ConnectToken) {
        self.token = token
    }

    /// The netcode.io address of a `udp://HOST:PORT` URL (a path after the port is ignored).
    ///
    /// - Parameter url: The URL, `udp://127.0.0.1:7778` or `udp://[::1]:7778`.
    /// - Returns: The address, or `nil` when the URL is not a `udp://` URL with a numeric host and a port.
    static func address(ofURL url: String) -> NetcodeAddress? {
        guard url.hasPrefix("udp://") else { return nil }
        let authority = url.dropFirst("udp://".count).prefix { $0 != "/" }
        do throws(NetcodeError) {
            return try NetcodeAddress(parsing: String(authority))
        } catch {
            return nil
        }
    }
}
