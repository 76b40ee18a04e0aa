/// The connect tokens a server has seen, by the tag of their private part, with the address that
/// first used each: a token is accepted again from that address only. Eight entries per client
/// slot (the reference's capacity); when full, the oldest entry is replaced.
struct ConnectTokenHistory: Sendable {
    private struct Entry: Sendable {
        var mac: [UInt8]
        var address: NetcodeAddress
        var time: Double
    }

    private var entries: [Entry?]

    init(capacity: Int) { entries = Array(repeating: nil, count: capacity) }

    /// Records the token with tag `mac` as used from `address`; false when another address used it already.
    mutating func findOrAdd(mac: [UInt8], address: NetcodeAddress, now: Double) -> Bool {
        var oldest = 0
        var oldestTime = Double.infinity
        for index in entries.indices {
            guard let entry = entries[index] else {
                if oldestTime > -Double.infinity {
                    oldest = index
                    oldestTime = -Double.infinity
                }
                continue
            }
            if entry.mac == mac { return entry.address == address }
            if entry.time < oldestTime {
                oldest = index
                oldestTime = entry.time
            }
        }
        entries[oldest] = Entry(mac: mac, address: address, time: now)
        return true
    }
}
