import Synchronization

/// The two directions of one simulated connection, shared by its two ends.
///
/// Thread-safe: the links live in a `Mutex`; the other properties are immutable.
final class SimulatedPipe: Sendable {
    struct Links {
        var upstream: SimulatedLink
        var downstream: SimulatedLink
        /// What each direction delivered (folded in by the receiving end's drain).
        var deliveredUpstream = DeliveredTraffic()
        var deliveredDownstream = DeliveredTraffic()
        subscript(toClient toClient: Bool) -> SimulatedLink {
            // Both yield the stored link in place: a getter would copy it (retaining its queue and
            // every packet in it) on every read of `bufferedBytes`, and a setter on every send.
            _read {
                if toClient { yield downstream } else { yield upstream }
            }
            _modify {
                if toClient { yield &downstream } else { yield &upstream }
            }
        }
    }

    /// A digest and counts of the frames one direction of a pipe delivered. Kept per direction
    /// of each connection, under that connection's own lock, so that tick threads draining
    /// different connections never share a lock or a cache line here (a network-wide lock for
    /// this serialised them); ``SimulatedNetwork/wireDigest`` combines them.
    struct DeliveredTraffic {
        /// 64-bit FNV-1a over each delivered frame's arrival time and bytes, in delivery order.
        var digest: UInt64 = 0xCBF2_9CE4_8422_2325
        var frames = 0
        var bytes = 0

        mutating func fold(time: Int64, bytes frame: [UInt8]) {
            var hash = digest
            for shift in stride(from: 0, to: 64, by: 8) {
                hash = (hash ^ UInt64(truncatingIfNeeded: UInt64(bitPattern: time) >> UInt64(shift) & 0xFF)) &* 0x0000_0100_0000_01B3
            }
            for byte in frame { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01B3 }  // FNV prime; wrapping is the algorithm
            digest = hash
            frames += 1
            bytes += frame.count
        }
    }

    /// The network's clock (not the network, which keeps its pipes: no cycle).
    let clock: any TickClock
    let id: UInt64
    let links: Mutex<Links>

    init(clock: any TickClock, id: UInt64, upstream: SimulatedLink, downstream: SimulatedLink) {
        self.clock = clock
        self.id = id
        self.links = Mutex(Links(upstream: upstream, downstream: downstream))
    }

    var now: Int64 { clock.now.nanoseconds }
}
