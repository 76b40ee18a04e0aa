import TickwireCodec

/// What became of a message handed to the send pipeline (``FrameCompressor/send(_:over:budgetBytes:)``).
enum MessageSendOutcome: Equatable {
    /// Sent: the frame's size on the wire.
    case sent(bytes: Int)
    /// Not sent, and nothing broken: the connection would not take a frame (asked before
    /// encoding, so no history changed), or the connection refused a frame that joins no history.
    case notSent(TransportSendResult)
    /// Not sent: the message could not be made into a frame (a frame limit; nothing entered a history).
    case notEncoded(FrameError)
    /// The connection refused a frame that had already joined the streaming deflate history:
    /// the peer could not inflate anything after it, so the connection was closed.
    case closedBrokenStream(TransportSendResult)

    /// The frame's size when sent.
    var sentBytes: Int? {
        if case .sent(let bytes) = self { return bytes }
        return nil
    }
}

extension FrameCompressor {
    /// The one send pipeline of rooms and client sessions: asks the connection whether it will
    /// take a frame, encodes `message` (this compressor alone decides on compression) and sends it.
    ///
    /// Nothing is encoded unless the connection says it will take the frame, so a streaming
    /// history never holds a frame that was not sent. Should the connection refuse a frame that
    /// joined the history anyway (it filled up in between), the connection is closed rather than
    /// left carrying a stream the peer can no longer inflate (`Protocol/PROTOCOL.md` 6.3); the
    /// peer resumes over a new connection with fresh streams.
    ///
    /// - Parameters:
    ///   - message: The message.
    ///   - connection: Where to send it.
    ///   - budgetBytes: The most bytes the caller lets wait in the connection before it skips
    ///     this message; `Int.max` to be limited only by the transport's own buffer.
    /// - Returns: What became of the message.
    @discardableResult
    func send(_ message: Message, over connection: any TransportConnection, budgetBytes: Int = .max) -> MessageSendOutcome {
        let readiness = connection.readiness(budgetBytes: budgetBytes)
        guard readiness == .taken else { return .notSent(readiness) }
        let frame: [UInt8]
        do throws(FrameError) {
            frame = try encode(message)
        } catch {
            return .notEncoded(error)
        }
        let result = connection.send(frame)
        if result == .taken { return .sent(bytes: frame.count) }
        guard joinsHistory(message.type) else { return .notSent(result) }
        connection.close(
            code: .policyViolation, reason: "a compressed frame was refused (\(result)); the compression stream cannot skip it")
        return .closedBrokenStream(result)
    }
}
