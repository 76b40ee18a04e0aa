import Synchronization

/// The two directions of one simulated connection, shared by its two ends.
///
/// Thread-safe: the links live in a `Mutex`; the other properties are immutable.
final class SimulatedPipe: Sendable {
    struct Links {
        var upstream: SimulatedLink
        var downstream: SimulatedLink
        subscript(toClient toClient: Bool) -> SimulatedLink {
            get { toClient ? downstream : upstream }
            // Yields the stored link in place: a get/set pair would copy it and its queue on every send.
            _modify {
                if toClient { yield &downstream } else { yield &upstream }
            }
        }
    }

    let network: SimulatedNetwork
    let id: UInt64
    let links: Mutex<Links>

    init(network: SimulatedNetwork, id: UInt64, upstream: SimulatedLink, downstream: SimulatedLink) {
        self.network = network
        self.id = id
        self.links = Mutex(Links(upstream: upstream, downstream: downstream))
    }

    var now: Int64 { network.clock.now.nanoseconds }
}
