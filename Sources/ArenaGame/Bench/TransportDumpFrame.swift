/// One render frame of a headless client's dump (`arena join … --script … --dump`), as the
/// transport bench reads it: the header's `net` figures (``NetGraphLine``) and the byte total
/// of the players line under it.
///
/// Times are as the dump prints them: `time` in seconds since the first frame, the rest in
/// milliseconds. A figure the client did not know yet (`-` in the dump) is `nil`.
package struct TransportDumpFrame: Hashable, Sendable {
    /// Seconds since the client's first frame.
    package var time: Double
    /// The transport the client says it plays over (`ws`, `wss`, `udp`), when it knows it.
    package var transport: String?
    /// The median round trip of the recent pings, ms.
    package var ping: Double?
    /// The longest round trip of the recent pings (the last 16 pongs), ms.
    package var worstPing: Double?
    /// Frames drawn since the session began, and of them those extrapolated past the newest snapshot.
    package var framesRendered: Int
    /// Of ``framesRendered``, the frames extrapolated (starved of snapshots).
    package var extrapolatedFrames: Int
    /// Snapshots received since the session began.
    package var snapshotsReceived: Int
    /// The newest snapshot's age at this frame (estimated server time now minus its stamp), ms.
    package var snapshotAge: Double?
    /// Local time since a snapshot last arrived, ms.
    package var sinceSnapshot: Double?
    /// How long the newest applied input took from the client to the server tick that applied
    /// it, ms (the dump's `input`).
    package var inputDelay: Double?
    /// Frame bytes received since the session began (the players line's `T B in all`), when
    /// the frame has a players line.
    package var bytesReceived: Int?

    /// Creates a frame from its figures.
    package init(
        time: Double, transport: String? = nil, ping: Double? = nil, worstPing: Double? = nil, framesRendered: Int,
        extrapolatedFrames: Int, snapshotsReceived: Int, snapshotAge: Double? = nil, sinceSnapshot: Double? = nil,
        inputDelay: Double? = nil, bytesReceived: Int? = nil
    ) {
        self.time = time
        self.transport = transport
        self.ping = ping
        self.worstPing = worstPing
        self.framesRendered = framesRendered
        self.extrapolatedFrames = extrapolatedFrames
        self.snapshotsReceived = snapshotsReceived
        self.snapshotAge = snapshotAge
        self.sinceSnapshot = sinceSnapshot
        self.inputDelay = inputDelay
        self.bytesReceived = bytesReceived
    }
}
