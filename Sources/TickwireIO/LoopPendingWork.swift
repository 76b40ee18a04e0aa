/// Something with work left over at the end of a loop turn that it continues in the next turn,
/// with no new socket readiness to wake it: a connection that stopped a long job after a bounded
/// step so that the other connections on its loop are served in between.
///
/// Ask for one call of ``continuePendingWork()`` with ``EventLoop/requestPendingWork(_:)``; the
/// loop then does not sleep, handles the next turn's readiness events first, then calls it.
/// Ask again from inside the call to go on for another turn. Loop thread only.
package protocol LoopPendingWork: AnyObject {
    /// Does the next bounded step of the work.
    func continuePendingWork()
}
