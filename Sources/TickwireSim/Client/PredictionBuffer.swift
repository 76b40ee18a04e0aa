/// The local player's inputs that the server has not yet applied, in sequence order, for
/// client-side prediction and reconciliation.
///
/// Each client tick the client records its input and steps its predicted state with the
/// shared step function. When a snapshot arrives stamped with the last input sequence the
/// server applied, the client drops the inputs up to it, takes the authoritative state, and
/// replays the rest (``reconcile(authoritative:lastProcessed:step:)``). The buffer is
/// bounded: beyond ``capacity`` the oldest inputs are dropped (the server is then too far
/// behind for prediction to mean much).
struct PredictionBuffer<Input>: Sendable where Input: Sendable {
    /// The most unacknowledged inputs kept.
    let capacity: Int
    private var sequences: [UInt32] = []
    private var inputs: [Input] = []

    /// Creates an empty buffer.
    ///
    /// - Parameter capacity: The most inputs kept (at least 1).
    init(capacity: Int = 128) {
        self.capacity = max(1, capacity)
    }

    /// How many inputs await acknowledgement.
    var count: Int { sequences.count }

    /// The sequence numbers held, oldest first.
    var pendingSequences: [UInt32] { sequences }

    /// Records an input sent with `sequence` (which must exceed every one recorded before).
    ///
    /// - Parameters:
    ///   - input: The input.
    ///   - sequence: Its sequence number.
    mutating func record(_ input: Input, sequence: UInt32) {
        if let last = sequences.last, sequence <= last { return }
        sequences.append(sequence)
        inputs.append(input)
        if sequences.count > capacity {
            sequences.removeFirst(sequences.count - capacity)
            inputs.removeFirst(inputs.count - capacity)
        }
    }

    /// Forgets the inputs the server has applied: every sequence up to `lastProcessed`.
    ///
    /// - Parameter lastProcessed: The newest sequence the server applied.
    mutating func acknowledge(upTo lastProcessed: UInt32) {
        var drop = 0
        while drop < sequences.count, sequences[drop] <= lastProcessed { drop += 1 }
        if drop > 0 {
            sequences.removeFirst(drop)
            inputs.removeFirst(drop)
        }
    }

    /// The newest `count` inputs, newest first, with the newest one's sequence: what an
    /// input message repeats for redundancy.
    ///
    /// - Parameter count: How many to return at most.
    /// - Returns: The inputs, newest first.
    func newest(_ count: Int) -> [Input] {
        Array(inputs.suffix(max(0, count)).reversed())
    }

    /// Acknowledges up to `lastProcessed`, then replays the remaining inputs on top of the
    /// authoritative state.
    ///
    /// - Parameters:
    ///   - authoritative: The state the server reported (after applying `lastProcessed`).
    ///   - lastProcessed: The newest input sequence the server applied.
    ///   - step: The shared step function, applied once per pending input.
    /// - Returns: The predicted present state.
    mutating func reconcile<State>(
        authoritative: State, lastProcessed: UInt32, step: (State, Input) -> State
    ) -> State {
        acknowledge(upTo: lastProcessed)
        var state = authoritative
        for input in inputs { state = step(state, input) }
        return state
    }

    /// Forgets every input (after a reconnect).
    mutating func removeAll() {
        sequences.removeAll()
        inputs.removeAll()
    }
}
