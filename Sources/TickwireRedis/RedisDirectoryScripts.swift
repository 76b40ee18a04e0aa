/// The Lua scripts a ``RedisRoomDirectory`` runs with `EVAL`, each atomic on the server: a
/// claim is only ever renewed, saved under, or deleted by the process whose id it holds.
///
/// The rule after a partition: the claim in Redis wins. A process whose claim now holds another
/// process's id has lost the room; a claim that expired with no new holder is taken back by the
/// process still running the room.
enum RedisDirectoryScripts {
    /// KEYS: owner, state. ARGV: id, ttl (ms), process key prefix.
    /// Returns `{1, state-or-nil}` when this process holds the room (claimed now, or already),
    /// else `{0, owner, owner's registration or nil, owner claim's PTTL}`.
    static let claim = """
        if redis.call('SET', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then
          return {1, redis.call('GET', KEYS[2])}
        end
        local owner = redis.call('GET', KEYS[1])
        if owner == ARGV[1] then
          redis.call('PEXPIRE', KEYS[1], ARGV[2])
          return {1, redis.call('GET', KEYS[2])}
        end
        return {0, owner, redis.call('GET', ARGV[3] .. owner), redis.call('PTTL', KEYS[1])}
        """

    /// KEYS: owner keys. ARGV: id, ttl (ms). Renews each claim held by `id`, takes back each
    /// expired one; returns one integer per key: 1 held, 0 another process holds it.
    static let renew = """
        local result = {}
        for i, key in ipairs(KEYS) do
          local owner = redis.call('GET', key)
          if owner == ARGV[1] then
            redis.call('PEXPIRE', key, ARGV[2])
            result[i] = 1
          elseif not owner then
            redis.call('SET', key, ARGV[1], 'PX', ARGV[2])
            result[i] = 1
          else
            result[i] = 0
          end
        end
        return result
        """

    /// KEYS: owner, state. ARGV: id, ttl (ms), state, state ttl (ms). Stores the state when `id`
    /// holds the claim (taking back an expired one); returns 1, or 0 when another process holds it.
    static let save = """
        local owner = redis.call('GET', KEYS[1])
        if owner and owner ~= ARGV[1] then return 0 end
        if not owner then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
        redis.call('SET', KEYS[2], ARGV[3], 'PX', ARGV[4])
        return 1
        """

    /// KEYS: owner. ARGV: id. Deletes the claim when `id` holds it; returns how many keys went.
    static let release = """
        if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
        return 0
        """
}
