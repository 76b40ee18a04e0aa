/// Something told at the end of each turn of its event loop: the moment to send what it
/// gathered while the turn's events were handled, so that one turn's output leaves together.
///
/// A protocol layer registers one observer per loop (``EventLoop/addTurnObserver(_:)``), not one
/// per connection: the WebSocket layer's per-loop state, which sends every connection's replies
/// of the turn, one `send` per connection. The loop calls ``loopTurnEnded()`` after the turn's
/// readiness events and again after its timers and queued work. Loop thread only.
package protocol LoopTurnObserver: AnyObject {
    /// The turn's events (or its timers and queued work) have been handled.
    func loopTurnEnded()
}
