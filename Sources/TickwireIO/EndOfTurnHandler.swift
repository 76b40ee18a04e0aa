/// Something with work left for the end of its event loop's current turn: bytes gathered while
/// the turn's events were handled, to be sent together once they all are.
///
/// A protocol layer on the loop (the WebSocket connections) registers itself with
/// ``EventLoop/callAtEndOfTurn(_:)`` once per turn in which it has work; the loop calls
/// ``loopTurnEnded()`` after the turn's readiness events, and again after its timers and
/// queued work. Loop thread only.
package protocol EndOfTurnHandler: AnyObject {
    /// The loop's turn (or the part of it that gathers into ``EventLoop/replyBuffer``) is over:
    /// send what was deferred to it.
    func loopTurnEnded()
}

/// The owner of the event loop's ``EventLoop/replyBuffer`` while it has the buffer swapped into
/// its own storage (``EventLoop/replyBufferHolder``), so the buffer's bytes are reachable only
/// through it. Loop thread only.
package protocol ReplyBufferHolder: AnyObject {
    /// Calls `body` with the reply buffer's bytes, which the holder has in its own storage.
    ///
    /// - Parameter body: Reads the bytes; it must not reach the buffer through the loop.
    func withReplyBuffer(_ body: (UnsafeRawBufferPointer) -> Void)
}
