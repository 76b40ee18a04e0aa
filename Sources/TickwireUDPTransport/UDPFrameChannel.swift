import TickwireCodec
import TickwirePacket

extension PacketChannel {
    /// The channel a Tickwire frame travels on over UDP, by its message type (PROTOCOL.md 1A.1):
    /// hello, welcome, reject, disconnect and application messages on the reliable-ordered
    /// channel; snapshot, input, ping, pong and stats (and any type Tickwire does not name yet)
    /// on the unreliable one, where a lost frame is never resent and frames may overtake each other.
    ///
    /// - Parameter frame: A frame (its first byte is the type byte; bit 7 is the compressed flag).
    init(frame: [UInt8]) {
        guard let first = frame.first, let type = MessageType(rawValue: first & ~Frame.compressedFlag) else {
            self = .unreliable
            return
        }
        switch type {
        case .hello, .welcome, .reject, .disconnect: self = .reliableOrdered
        default: self = type.isApplication ? .reliableOrdered : .unreliable
        }
    }
}
