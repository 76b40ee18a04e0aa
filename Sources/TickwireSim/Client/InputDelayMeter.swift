/// Measures how long the local player's inputs take to reach the game: from the moment the
/// client sent an input to the server tick that applied it.
///
/// Each input is remembered with its sequence number and the local time it was sent. A
/// snapshot says the newest input sequence its tick applied (`lastProcessedInput`) and the
/// server time of that tick; each input it applies for the first time gives one sample,
/// `tick's server time − (send time + clock offset)`. The sample holds the path one way, any
/// retransmission or redundant resend that got the input there, and the wait for the server's
/// next tick; the clock estimate's error (at most half a round trip, near zero on a symmetric
/// path) is in it too. The snapshot that says so may be a later tick's, when the applying tick's
/// snapshot was lost (UDP) or not sent to this client (a snapshot interval above 1): the sample
/// then holds those ticks too, as the player's wait to see the input took effect does. An input
/// the host dropped (its queue full) counts as applied with the next one. All times are in seconds.
struct InputDelayMeter: Sendable {
    /// Inputs remembered at most: older ones are forgotten unmeasured (a client whose inputs are
    /// not applied for this many ticks has lost its connection).
    static let capacity = 128
    /// How many recent samples the worst is taken over.
    static let windowSize = 16

    private var pending: [(sequence: UInt32, sentAt: Double)] = []
    private var window: [Double] = []
    private var nextSlot = 0

    /// The newest sample, seconds; `nil` before the first.
    private(set) var latest: Double?
    /// Samples taken since the meter was created.
    private(set) var sampleCount = 0

    /// Remembers an input sent now.
    ///
    /// - Parameters:
    ///   - sequence: Its sequence number (larger than every one remembered).
    ///   - sentAt: The local time it was sent.
    mutating func sent(sequence: UInt32, at sentAt: Double) {
        if let last = pending.last, sequence <= last.sequence { return }
        pending.append((sequence, sentAt))
        if pending.count > Self.capacity { pending.removeFirst(pending.count - Self.capacity) }
    }

    /// Takes the samples of the inputs a snapshot's tick applied.
    ///
    /// - Parameters:
    ///   - lastProcessed: The newest input sequence the tick applied.
    ///   - serverTime: The server time stamped in the snapshot.
    ///   - clockOffset: Server time minus local time, as estimated now; `nil` before the clock
    ///     is known (the inputs are then forgotten unmeasured).
    mutating func applied(upTo lastProcessed: UInt32, serverTime: Double, clockOffset: Double?) {
        var taken = 0
        while taken < pending.count, pending[taken].sequence <= lastProcessed {
            if let clockOffset { add(max(0, serverTime - (pending[taken].sentAt + clockOffset))) }
            taken += 1
        }
        if taken > 0 { pending.removeFirst(taken) }
    }

    /// The largest of the recent samples, seconds; `nil` before the first.
    var worst: Double? { window.max() }

    /// Forgets the inputs in flight (a new connection numbers its inputs from 1 again); the
    /// samples stay.
    mutating func forgetPending() {
        pending.removeAll()
    }

    private mutating func add(_ sample: Double) {
        latest = sample
        sampleCount += 1
        if window.count < Self.windowSize {
            window.append(sample)
        } else {
            window[nextSlot] = sample
            nextSlot = (nextSlot + 1) % Self.windowSize
        }
    }
}
