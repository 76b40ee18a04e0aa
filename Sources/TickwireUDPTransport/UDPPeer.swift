import TickwirePacket
import TickwireSim

/// One connection's packet layer on the event loop: the `PacketEndpoint`, the close
/// handshake (PROTOCOL.md 1A.10) and the counts only the loop keeps.
///
/// Not thread-safe: a value owned by its driver on the loop thread.
struct UDPPeer {
    let core: UDPConnectionCore
    var endpoint: PacketEndpoint
    /// A client drops unreliable frames that come before the first reliable one (its welcome):
    /// they could not be decoded yet (PROTOCOL.md 1A.1).
    let dropsFramesBeforeWelcome: Bool
    var hasReceivedReliable = false
    /// This side sent its close message.
    var hasSentClose = false
    /// The peer's close message arrived.
    var hasReceivedClose = false
    /// When the close linger ends (set once either close is sent or received).
    var lingerDeadline: Double?
    var packetsRefused = 0
    var framesDroppedBeforeWelcome = 0

    /// Whether this is a client's peer (only a client drops frames before its welcome).
    var isClientSide: Bool { dropsFramesBeforeWelcome }

    init(core: UDPConnectionCore, endpoint: PacketEndpoint, dropsFramesBeforeWelcome: Bool) {
        self.core = core
        self.endpoint = endpoint
        self.dropsFramesBeforeWelcome = dropsFramesBeforeWelcome
    }

    /// Passes the frames handed over to the packet layer, then this side's close if one was
    /// asked for, and returns the packets to send now.
    mutating func flush(now: Double) -> [[UInt8]] {
        let (frames, close) = core.takeOutbox()
        var packets: [[UInt8]] = []
        for frame in frames {
            do throws(PacketError) {
                packets += try endpoint.send(frame.bytes, on: frame.channel, now: now)
            } catch {
                // The connection counted the reliable queue before it took the frame, so only a
                // frame over the message size limit gets here: it cannot travel over UDP at all.
                fail(
                    code: error.code == .messageTooLarge ? .messageTooBig : .policyViolation,
                    reason: "a frame could not be sent over UDP: \(error)", now: now, into: &packets)
                return packets
            }
        }
        if let close { sendClose(close, now: now, into: &packets) }
        return packets
    }

    /// Takes one packet from the peer: frames reach the inbox, a close message ends the
    /// connection; returns the packets to send now (none: acks go with the next packet or update).
    mutating func receive(_ payload: [UInt8], now: Double) -> [[UInt8]] {
        var packets: [[UInt8]] = []
        let messages: [ReceivedMessage]
        do throws(PacketError) {
            messages = try endpoint.receive(payload, now: now)
        } catch {
            packetsRefused += 1
            if error.code == .reliableProtocolViolation {
                fail(code: .protocolError, reason: "the peer broke the reliable channel: \(error)", now: now, into: &packets)
            }
            return packets
        }
        for message in messages {
            if UDPCloseMessage.isCloseMessage(message.bytes) {
                guard let close = UDPCloseMessage(decoding: message.bytes) else {
                    fail(code: .protocolError, reason: "a malformed close message", now: now, into: &packets)
                    return packets
                }
                hasReceivedClose = true
                lingerDeadline = lingerDeadline ?? now + core.limits.closeLinger
                core.end(.closedByPeer(code: close.code, text: close.reason))
                continue
            }
            if UDPHandoverMessage.isHandoverMessage(message.bytes) {
                // Only a server hands over, on the reliable channel; a client never does.
                guard isClientSide, message.channel == .reliableOrdered,
                    let handover = UDPHandoverMessage(decoding: message.bytes)
                else {
                    fail(code: .protocolError, reason: "a malformed or misplaced handover message", now: now, into: &packets)
                    return packets
                }
                core.state.withLock { $0.handedOverToken = handover.token }
                continue
            }
            if message.channel == .reliableOrdered {
                hasReceivedReliable = true
            } else if dropsFramesBeforeWelcome && !hasReceivedReliable {
                framesDroppedBeforeWelcome += 1
                continue
            }
            core.inbox.push(.frame(message.bytes))
        }
        return packets
    }

    /// Acks, resends and the frames handed over since the last flush.
    mutating func update(now: Double) -> [[UInt8]] {
        flush(now: now) + endpoint.update(now: now)
    }

    /// Whether the close handshake is over: this side's close was acknowledged, or the linger
    /// ran out. The owner then sends netcode.io's disconnect.
    func isDoneClosing(now: Double) -> Bool {
        guard let lingerDeadline else { return false }
        if now >= lingerDeadline { return true }
        return hasSentClose && !hasReceivedClose && endpoint.pendingReliableMessages == 0
    }

    /// Ends the connection from this side's transport (a broken rule, an oversized frame): the
    /// inbox hears why, and the peer gets a close with `code` and `reason`.
    mutating func fail(code: CloseCode, reason: String, now: Double, into packets: inout [[UInt8]]) {
        core.end(TransportCloseReason("closed by the UDP transport", code: code, text: reason))
        sendClose(UDPCloseMessage(code: code, reason: reason), now: now, into: &packets)
    }

    private mutating func sendClose(_ close: UDPCloseMessage, now: Double, into packets: inout [[UInt8]]) {
        guard !hasSentClose else { return }
        hasSentClose = true
        lingerDeadline = lingerDeadline ?? now + core.limits.closeLinger
        do throws(PacketError) {
            packets += try endpoint.send(close.encoded, on: .reliableOrdered, now: now)
        } catch {
            // The reliable queue is full: the close cannot be sent; netcode.io's disconnect
            // follows at once and the peer reports a close without a code.
            lingerDeadline = now
        }
    }

    /// Publishes the endpoint's figures and this peer's counts to the sending side.
    func publish(datagramsDropped: Int) {
        core.publish(endpoint) { statistics in
            statistics.packetsRefused = packetsRefused
            statistics.framesDroppedBeforeWelcome = framesDroppedBeforeWelcome
            statistics.datagramsDropped = datagramsDropped
        }
    }
}
