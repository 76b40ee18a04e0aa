/// The Lua scripts a ``RedisMatchmaker`` runs with `EVAL`: each reads the fleet's registrations
/// and the matchmaker's rooms, gives back expired seats, and answers, in one atomic step on the
/// server (so concurrent requests from every process never put more players in a room than its
/// capacity). The rules are ``InMemoryDirectoryStore``'s; see `reserveSeat(_:player:rules:)` there.
///
/// Keys (the room and process keys are ``RedisDirectoryConfiguration``'s): `PREFIX:mm:rooms` (a
/// set of the rooms the matchmaker made), `PREFIX:mm:room:NAME` (a hash: mode, process, capacity,
/// created, reported, private), `PREFIX:mm:res:NAME` (a sorted set: player → expiry in Unix ms) and
/// `PREFIX:mm:player:ID` (the room of a player's reservation, expiring with it). The scripts
/// name their keys inside (a fleet's Redis is one server, not a cluster).
enum RedisMatchmakerScripts {
    /// ARGV: prefix, now (Unix ms). Defines `records` (live processes' registrations), `rooms`
    /// (the matchmaker's open rooms, each with `seats` taken and `rep`, its process's report), and
    /// the helpers the two scripts share.
    static let preamble = """
        local prefix, now = ARGV[1], tonumber(ARGV[2])
        local roomsKey = prefix .. ':mm:rooms'
        local function roomKey(n) return prefix .. ':mm:room:' .. n end
        local function resKey(n) return prefix .. ':mm:res:' .. n end
        local function playerKey(p) return prefix .. ':mm:player:' .. p end
        local function ownerKey(n) return prefix .. ':room:' .. n .. ':owner' end
        local records = {}
        for _, id in ipairs(redis.call('SMEMBERS', prefix .. ':processes')) do
          local raw = redis.call('GET', prefix .. ':process:' .. id)
          if raw then
            local ok, record = pcall(cjson.decode, raw)
            if ok and type(record) == 'table' then records[id] = record end
          end
        end
        local function reportOf(process, name)
          local record = records[process]
          if not record or type(record.rooms) ~= 'table' then return nil end
          for _, room in ipairs(record.rooms) do if room.name == name then return room end end
          return nil
        end
        local rooms = {}
        for _, name in ipairs(redis.call('SMEMBERS', roomsKey)) do
          local fields = redis.call('HGETALL', roomKey(name))
          if #fields == 0 then
            redis.call('SREM', roomsKey, name)
          else
            local room = {name = name}
            for i = 1, #fields, 2 do room[fields[i]] = fields[i + 1] end
            redis.call('ZREMRANGEBYSCORE', resKey(name), '-inf', now)
            local report = reportOf(room.process, name)
            if report and room.reported ~= '1' then
              redis.call('HSET', roomKey(name), 'reported', '1')
              room.reported = '1'
            end
            local waiting = redis.call('ZRANGE', resKey(name), 0, -1)
            if (room.reported == '1' and not report) or (room.reported ~= '1' and #waiting == 0) then
              -- Closed on its process (or its process died), or made for seats nobody took.
              if room.reported ~= '1' and redis.call('GET', ownerKey(name)) == room.process then redis.call('DEL', ownerKey(name)) end
              redis.call('DEL', roomKey(name), resKey(name))
              redis.call('SREM', roomsKey, name)
            else
              local counted, players, clients = {}, 0, 0
              if report then
                clients = tonumber(report.clients) or 0
                if type(report.players) == 'table' then
                  for _, p in ipairs(report.players) do if not counted[p] then counted[p] = true; players = players + 1 end end
                end
              end
              local anonymous = math.max(0, clients - players)
              for _, p in ipairs(waiting) do if not counted[p] then counted[p] = true; players = players + 1 end end
              room.seats = anonymous + players
              room.clients = clients
              room.rep = report
              room.capacity = tonumber(room.capacity)
              room.created = tonumber(room.created)
              rooms[name] = room
            end
          end
        end
        local function isLocked(room) return room.rep ~= nil and room.rep.locked == true end
        local function isPrivate(room) return room.private == '1' or (room.rep ~= nil and room.rep.private == true) end
        -- A process is live while its registration (rewritten every heartbeat, expiring after the
        -- claim TTL) is there: a room on a dead process takes no player by join or joinOrCreate.
        local function isLive(room) return records[room.process] ~= nil end

        """

    /// ARGV after the preamble's: 3 action (`joinOrCreate`, `join`, `create`, `joinByID`), 4 mode
    /// or room, 5 player, 6 reservation TTL (ms), 7 capacity of the mode's rooms, 8 a fresh room
    /// name for a new room, 9 `1` when a room made is private. Returns `{'ok', room, mode, process, url, udp, isNew}` or
    /// `{'err', kind}` (`noOpenRoom`, `unknownRoom`, `roomFull`, `roomLocked`, `noLiveProcess`,
    /// `nameTaken`: the name was in use; ask again with another).
    static let reserve =
        preamble + """
            local action, target, player = ARGV[3], ARGV[4], ARGV[5]
            local ttl, capacity, candidate, private = tonumber(ARGV[6]), tonumber(ARGV[7]), ARGV[8], ARGV[9]
            local function reserveIn(name, isNew)
              local room = rooms[name]
              local previous = redis.call('GET', playerKey(player))
              if previous and previous ~= name then redis.call('ZREM', resKey(previous), player) end
              redis.call('ZADD', resKey(name), now + ttl, player)
              redis.call('SET', playerKey(player), name, 'PX', ttl)
              local record = records[room.process] or {}
              local udp = record.udp
              if type(udp) ~= 'string' then udp = '' end
              return {'ok', name, room.mode, room.process, record.url or '', udp, isNew and '1' or '0'}
            end
            local function makeRoom(mode)
              local best, bestLoad = nil, 0
              for id, record in pairs(records) do
                local load = 0
                if type(record.rooms) == 'table' then
                  for _, r in ipairs(record.rooms) do load = load + (tonumber(r.clients) or 0) end
                end
                for _, room in pairs(rooms) do
                  if room.process == id then load = load + math.max(0, room.seats - room.clients) end
                end
                if best == nil or load < bestLoad or (load == bestLoad and id < best) then best, bestLoad = id, load end
              end
              if best == nil then return nil, 'noLiveProcess' end
              if redis.call('EXISTS', roomKey(candidate)) == 1 then return nil, 'nameTaken' end
              if not redis.call('SET', ownerKey(candidate), best, 'NX', 'PX', ttl) then return nil, 'nameTaken' end
              redis.call('HSET', roomKey(candidate), 'mode', mode, 'process', best, 'capacity', capacity, 'created', now, 'reported', '0',
                'private', private)
              redis.call('SADD', roomsKey, candidate)
              rooms[candidate] = {name = candidate, mode = mode, process = best, capacity = capacity, created = now, seats = 0, clients = 0,
                private = private}
              return candidate
            end
            if action == 'joinOrCreate' or action == 'join' then
              local held = redis.call('GET', playerKey(player))
              if held and rooms[held] and rooms[held].mode == target and isLive(rooms[held]) then return reserveIn(held, false) end
              local pick = nil
              for name, room in pairs(rooms) do
                if room.mode == target and isLive(room) and not isPrivate(room) and not isLocked(room) and room.seats < room.capacity then
                  local best = pick and rooms[pick]
                  if best == nil or room.seats > best.seats
                    or (room.seats == best.seats and (room.created < best.created or (room.created == best.created and name < pick))) then
                    pick = name
                  end
                end
              end
              if pick then return reserveIn(pick, false) end
              if action == 'join' then return {'err', 'noOpenRoom'} end
              local name, failure = makeRoom(target)
              if not name then return {'err', failure} end
              return reserveIn(name, true)
            elseif action == 'create' then
              local name, failure = makeRoom(target)
              if not name then return {'err', failure} end
              return reserveIn(name, true)
            elseif action == 'joinByID' then
              local room = rooms[target]
              if not room then return {'err', 'unknownRoom'} end
              if redis.call('GET', playerKey(player)) == target then return reserveIn(target, false) end
              if isLocked(room) then return {'err', 'roomLocked'} end
              if room.seats >= room.capacity then return {'err', 'roomFull'} end
              return reserveIn(target, false)
            end
            return {'err', 'unknownAction'}
            """

    /// ARGV after the preamble's: 3 mode, or the empty string for every mode. Returns one
    /// `{room, mode, seats, capacity, metadata JSON}` per public open room.
    static let list =
        preamble + """
            local mode = ARGV[3]
            local result = {}
            for name, room in pairs(rooms) do
              if (mode == '' or room.mode == mode) and not isPrivate(room) and not isLocked(room) then
                local metadata = '{}'
                if room.rep and type(room.rep.metadata) == 'table' then metadata = cjson.encode(room.rep.metadata) end
                table.insert(result, {name, room.mode, room.seats, room.capacity, metadata})
              end
            end
            return result
            """
}
