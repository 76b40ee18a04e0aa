import TickwireNetcode

/// The per-address bound on netcode.io connection requests
/// (``UDPTransportLimits/connectionRequestsPerAddressPerSecond``): a token bucket per source
/// host, whatever its port, holding at most one second's worth of requests and refilled at that
/// rate.
///
/// A connection request is the one packet the server reads without a key: it costs an AEAD
/// decryption of the 1024-byte private token, and a valid one (a captured token replayed, say)
/// also costs a challenge. The bucket caps what one address can make the server do. A client
/// that plays by the standard sends 10 requests a second (`Netcode.packetSendRate`) until it
/// is challenged, so the default budget (64) never touches it, nor a few players behind one NAT.
///
/// The table of buckets is bounded too: ``prune(now:)`` forgets every address whose bucket has
/// refilled, so it holds only the addresses that sent a request within the last second.
/// A value type for the event loop's thread.
struct ConnectionRequestBudget: Sendable {
    /// Requests a second per host, and the most one host may send at once.
    let perSecond: Int
    private var buckets: [[UInt8]: Bucket] = [:]

    private struct Bucket: Sendable {
        var requests: Double
        var time: Double
    }

    /// A budget of `perSecond` requests a second per host, at least 1 (clamped).
    init(perSecond: Int) { self.perSecond = max(perSecond, 1) }

    /// Takes one request from the budget of `address`'s host.
    ///
    /// - Parameters:
    ///   - address: The request's source; only its host counts.
    ///   - now: Monotonic seconds.
    /// - Returns: false when the host has spent its budget: drop the request unread.
    mutating func admit(_ address: NetcodeAddress, now: Double) -> Bool {
        let capacity = Double(perSecond)
        var bucket = buckets[address.bytes] ?? Bucket(requests: capacity, time: now)
        bucket.requests = min(capacity, bucket.requests + max(now - bucket.time, 0) * capacity)
        bucket.time = now
        let isAdmitted = bucket.requests >= 1
        if isAdmitted { bucket.requests -= 1 }
        buckets[address.bytes] = bucket
        return isAdmitted
    }

    /// Forgets the hosts that sent nothing for a second: their buckets are full again.
    ///
    /// - Parameter now: Monotonic seconds.
    mutating func prune(now: Double) {
        buckets = buckets.filter { now - $0.value.time < 1 }
    }

    /// The hosts the table holds now.
    var trackedHosts: Int { buckets.count }
}
