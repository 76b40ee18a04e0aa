import Synchronization
import TickwireNetcode
import TickwirePacket
import TickwireSim

/// What the sending thread (a host's tick thread, a client's game loop) and the event loop share
/// for one UDP connection: the frames handed over and not yet taken by the loop, the reliable
/// channel's count against its bound, the close request, the statistics, and the inbox.
///
/// Thread-safe: every field is in the `Mutex` (or is the Mutex-protected inbox, or immutable).
final class UDPConnectionCore: Sendable {
    /// A frame waiting for the loop, with the channel its type byte chose.
    struct OutgoingFrame: Sendable {
        var bytes: [UInt8]
        var channel: PacketChannel
    }

    struct State: Sendable {
        /// Frames handed over, oldest first.
        var outbox: [OutgoingFrame] = []
        var outboxBytes = 0
        /// The reliable frames among them.
        var outboxReliableMessages = 0
        var outboxReliableBytes = 0
        /// Reliable messages in the packet layer's send queue, as the loop last saw it.
        var pendingReliableMessages = 0
        var pendingReliableBytes = 0
        /// Either side closed, or the connection was lost: nothing more is taken.
        var isClosed = false
        /// This side's close, for the loop to send after the outbox.
        var closeRequest: UDPCloseMessage?
        /// A flush is handed to the loop and has not run yet.
        var isFlushRequested = false
        var statistics = UDPConnectionStatistics()
        /// A client's netcode.io state, as the loop last saw it.
        var netcodeState = NetcodeClientState.disconnected
        /// The connect token a server handed over for another process (PROTOCOL.md 1A.11), the newest.
        var handedOverToken: ConnectToken?
    }

    let state = Mutex(State())
    let inbox = TransportInbox()
    let limits: UDPTransportLimits

    init(limits: UDPTransportLimits) {
        self.limits = limits
    }

    /// Queues `frame` for the loop; `requestFlush` is called (outside the lock) when the loop
    /// must be told.
    func send(_ frame: [UInt8], requestFlush: () -> Void) -> TransportSendResult {
        send(frame, on: PacketChannel(frame: frame), requestFlush: requestFlush)
    }

    /// Queues a message for the loop on `channel` (a transport message, whose channel no type
    /// byte chooses); `requestFlush` is called (outside the lock) when the loop must be told.
    func send(_ frame: [UInt8], on channel: PacketChannel, requestFlush: () -> Void) -> TransportSendResult {
        let packet = limits.packet
        let (result, mustRequest) = state.withLock { state -> (TransportSendResult, Bool) in
            guard !state.isClosed else { return (.closed, false) }
            guard state.outbox.count < limits.maximumQueuedFrames, state.outboxBytes + frame.count <= limits.maximumQueuedBytes
            else { return (.backedUp, false) }
            if channel == .reliableOrdered {
                let messages = state.pendingReliableMessages + state.outboxReliableMessages + 1
                let bytes = state.pendingReliableBytes + state.outboxReliableBytes + frame.count
                guard messages <= packet.reliableSendQueueMessages, bytes <= packet.reliableSendQueueBytes else {
                    return (.backedUp, false)
                }
                state.outboxReliableMessages += 1
                state.outboxReliableBytes += frame.count
            }
            state.outbox.append(OutgoingFrame(bytes: frame, channel: channel))
            state.outboxBytes += frame.count
            defer { state.isFlushRequested = true }
            return (.taken, !state.isFlushRequested)
        }
        if mustRequest { requestFlush() }
        return result
    }

    /// Bytes handed over and not yet sent, and reliable bytes not yet acknowledged.
    var bufferedBytes: Int { state.withLock { $0.outboxBytes + $0.pendingReliableBytes } }

    /// Closed; over `budgetBytes` or at one of the bounds ``send(_:requestFlush:)`` keeps: backed up; else taken.
    func readiness(budgetBytes: Int) -> TransportSendResult {
        let packet = limits.packet
        return state.withLock { state in
            guard !state.isClosed else { return .closed }
            let isFull =
                state.outboxBytes + state.pendingReliableBytes > budgetBytes
                || state.outbox.count >= limits.maximumQueuedFrames || state.outboxBytes >= limits.maximumQueuedBytes
                || state.pendingReliableMessages + state.outboxReliableMessages >= packet.reliableSendQueueMessages
                || state.pendingReliableBytes + state.outboxReliableBytes >= packet.reliableSendQueueBytes
            return isFull ? .backedUp : .taken
        }
    }

    /// This side closes: the inbox takes nothing more, and the loop sends the outbox, then the
    /// close message. `requestFlush` is called when the loop must be told.
    func close(code: CloseCode, reason: String, requestFlush: () -> Void) {
        let mustRequest = state.withLock { state -> Bool in
            guard !state.isClosed else { return false }
            state.isClosed = true
            state.closeRequest = UDPCloseMessage(code: code, reason: reason)
            defer { state.isFlushRequested = true }
            return !state.isFlushRequested
        }
        inbox.closeLocally()
        if mustRequest { requestFlush() }
    }

    /// The connection ended without this side closing it: `reason` reaches the inbox, and
    /// nothing more is taken. Nothing happens when this side closed first.
    func end(_ reason: TransportCloseReason) {
        state.withLock { $0.isClosed = true }
        inbox.push(.closed(reason))
    }

    var isClosed: Bool { state.withLock { $0.isClosed } }

    var statistics: UDPConnectionStatistics { state.withLock { $0.statistics } }

    /// Takes the frames handed over (and the close request, once), for the loop.
    func takeOutbox() -> (frames: [OutgoingFrame], close: UDPCloseMessage?) {
        state.withLock { state in
            let frames = state.outbox
            state.outbox.removeAll()
            state.outboxBytes = 0
            state.pendingReliableMessages += state.outboxReliableMessages
            state.pendingReliableBytes += state.outboxReliableBytes
            state.outboxReliableMessages = 0
            state.outboxReliableBytes = 0
            state.isFlushRequested = false
            let close = state.closeRequest
            state.closeRequest = nil
            return (frames, close)
        }
    }

    /// Publishes what the loop's endpoint knows: the reliable queue, RTT, loss and counters.
    func publish(_ endpoint: PacketEndpoint, extra: (inout UDPConnectionStatistics) -> Void) {
        state.withLock { state in
            state.pendingReliableMessages = endpoint.pendingReliableMessages
            state.pendingReliableBytes = endpoint.pendingReliableBytes
            state.statistics.update(from: endpoint)
            extra(&state.statistics)
        }
    }
}
