/// The server's encryption mappings: which keys read and write packets for which source address.
///
/// A mapping is added on a valid connection request and expires after `timeout` seconds without
/// packets either way, or, until its client connects, at its expire time (the request's time
/// plus the token's timeout). Capacity: four per client slot, as the reference implementation.
struct EncryptionMappings: Sendable {
    struct Entry: Sendable {
        var address: NetcodeAddress
        var sendKey: NetcodeKey
        var receiveKey: NetcodeKey
        var timeoutSeconds: Int32
        /// The time the mapping expires if no client connects through it; nil once one did (or no timeout).
        var expireTime: Double?
        var lastAccessTime: Double
        /// The slot of the client that connected through this mapping.
        var clientIndex: Int?

        func isExpired(at now: Double) -> Bool {
            if timeoutSeconds > 0 && lastAccessTime + Double(timeoutSeconds) < now { return true }
            if let expireTime, expireTime < now { return true }
            return false
        }
    }

    private(set) var entries: [Entry?]

    init(capacity: Int) { entries = Array(repeating: nil, count: capacity) }

    /// Adds or refreshes the mapping of `address`. Returns its index, or nil when every entry is live.
    mutating func add(
        address: NetcodeAddress, sendKey: NetcodeKey, receiveKey: NetcodeKey, now: Double, expireTime: Double?, timeoutSeconds: Int32
    ) -> Int? {
        let fresh = Entry(
            address: address, sendKey: sendKey, receiveKey: receiveKey, timeoutSeconds: timeoutSeconds, expireTime: expireTime,
            lastAccessTime: now, clientIndex: nil)
        if let index = entries.indices.first(where: { entries[$0]?.address == address && entries[$0]?.isExpired(at: now) == false }) {
            entries[index]?.sendKey = sendKey
            entries[index]?.receiveKey = receiveKey
            entries[index]?.timeoutSeconds = timeoutSeconds
            entries[index]?.expireTime = expireTime
            entries[index]?.lastAccessTime = now
            return index
        }
        for index in entries.indices {
            guard let entry = entries[index] else {
                entries[index] = fresh
                return index
            }
            if entry.clientIndex == nil && entry.isExpired(at: now) {
                entries[index] = fresh
                return index
            }
        }
        return nil
    }

    /// The live mapping of `address`, its access time refreshed.
    mutating func find(_ address: NetcodeAddress, now: Double) -> Int? {
        guard let index = entries.indices.first(where: { entries[$0]?.address == address && entries[$0]?.isExpired(at: now) == false })
        else { return nil }
        entries[index]?.lastAccessTime = now
        return index
    }

    /// Refreshes the access time of `index` if it still maps `address`; false when it does not.
    mutating func touch(_ index: Int, address: NetcodeAddress, now: Double) -> Bool {
        guard entries[index]?.address == address else { return false }
        entries[index]?.lastAccessTime = now
        return true
    }

    mutating func markConnected(_ index: Int, clientIndex: Int) {
        entries[index]?.expireTime = nil
        entries[index]?.clientIndex = clientIndex
    }

    mutating func remove(_ address: NetcodeAddress) {
        for index in entries.indices where entries[index]?.address == address { entries[index] = nil }
    }

    subscript(index: Int) -> Entry? { entries[index] }
}
