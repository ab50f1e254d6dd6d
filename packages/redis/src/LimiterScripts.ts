/**
 * The rate limiter's decisions as Lua scripts, each run atomically by Redis in one round trip. They
 * are the core's `LimitDecision.decide` and `decideAddress` step for step (integer token units,
 * the daily quota rolled at 00:00 UTC, the ban policy), on state kept in hashes:
 * - usage of an account: `u` bucket units, `a` last refill (epoch ms), `d` UTC day, `n` used that day;
 * - standing of each of its keys, in the same hash, under `k:<key id>:`: `w` wait until, `g` end of
 *   the wait's grace, `s` strikes, `b` banned until, `c` bans in a row, `l` last ban;
 * - bucket of a client address (failed authentication): `u`, `a`.
 * Each decision reads and writes one key, so on Redis Cluster it is served while its slot migrates
 * to another node: by the old node while it holds the key, by the new one (ASK) once it has moved.
 * (A script of two keys, one of them missing, would get TRYAGAIN for as long as the slot migrates.)
 * Time is Redis's own (`TIME`), so the instances' clocks do not matter; tests pass a time instead.
 * Every key written gets a TTL: it lives as long as some state in it differs from a fresh one, and at
 * least `KEEP_AT_LEAST` ms. A state kept past that is read as the fresh one would be (a full bucket, a past
 * day, a wait that ended), so the floor changes no decision; it keeps a test that passes its own
 * time (which runs ahead of Redis's while the test waits) from seeing a key expire between two
 * decisions a millisecond apart in its time.
 *
 * @since 1.0.0
 */

/** Shared preamble: `now` from ARGV[n] or, when negative, from Redis's clock. */
const NOW = (arg: number) => `
local now = tonumber(ARGV[${arg}])
if now < 0 then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
local UNIT = 60000
local DAY = 86400000
local KEEP_AT_LEAST = 1000`

/**
 * KEYS: the account's hash (its usage and its keys' standing).
 * ARGV: per minute, per day, cost, now (−1: Redis's clock), ban threshold, ban base ms, ban max ms, ban memory ms,
 * ban grace ms, key id.
 * Returns: verdict (0 allowed, 1 rate limited, 2 daily quota, 3 banned), wait ms, units, refill time,
 * day, used, banned until, now.
 */
export const ADMIT = `${NOW(4)}
local cap = tonumber(ARGV[1])
local perDay = tonumber(ARGV[2])
local cost = tonumber(ARGV[3])
local threshold = tonumber(ARGV[5])
local banBase = tonumber(ARGV[6])
local banMax = tonumber(ARGV[7])
local memory = tonumber(ARGV[8])
local grace = tonumber(ARGV[9])
local full = cap * UNIT
local today = math.floor(now / DAY)

local u = redis.call('HMGET', KEYS[1], 'u', 'a', 'd', 'n')
local units, at, day, used = full, now, today, 0
if u[1] then units, at, day, used = tonumber(u[1]), tonumber(u[2]), tonumber(u[3]), tonumber(u[4]) end
-- Refill (a clock that went backwards refills nothing), and a new UTC day starts from zero.
if now > at then units = math.min(full, units + (now - at) * cap); at = now end
if today > day then day = today; used = 0 end

local K = 'k:' .. ARGV[10] .. ':'
local s = redis.call('HMGET', KEYS[1], K .. 'w', K .. 'g', K .. 's', K .. 'b', K .. 'c', K .. 'l')
local waitUntil, graceUntil, strikes = tonumber(s[1]) or 0, tonumber(s[2]) or 0, tonumber(s[3]) or 0
local bannedUntil, bans, lastBanAt = tonumber(s[4]) or 0, tonumber(s[5]) or 0, tonumber(s[6]) or 0

local verdict, wait, consumed, standingChanged = 0, 0, false, false
if bannedUntil > now then
  verdict = 3
else
  local missing = cost * UNIT - units
  local bucketWait = 0
  if missing > 0 then bucketWait = math.ceil(missing / cap) end
  local quotaOk = used + cost <= perDay
  if bucketWait == 0 and quotaOk then
    units = units - cost * UNIT
    used = used + cost
    consumed = true
    if waitUntil ~= 0 or graceUntil ~= 0 or strikes ~= 0 then waitUntil = 0; graceUntil = 0; strikes = 0; standingChanged = true end
  else
    if quotaOk then
      verdict = 1; wait = bucketWait
    else
      verdict = 2; wait = math.max(bucketWait, (day + 1) * DAY - now)
    end
    -- A rejection at or after the instant to wait for starts a new wait and its grace; within the
    -- grace it is not a strike.
    local nextStrikes = 0
    if now < waitUntil then
      nextStrikes = strikes
      if now >= graceUntil then nextStrikes = strikes + 1 end
    else
      graceUntil = now + grace
    end
    if nextStrikes > threshold then
      if bans > 0 and now - bannedUntil < memory then bans = bans + 1 else bans = 1 end
      waitUntil = 0; graceUntil = 0; strikes = 0; lastBanAt = now
      bannedUntil = now + math.min(banBase * 2 ^ math.min(bans - 1, 30), banMax)
      verdict = 3
    else
      strikes = nextStrikes
      waitUntil = math.max(waitUntil, now + wait)
    end
    standingChanged = true
  end
end

-- The hash is kept as long as the longest of what it holds needs (never shortened: the standing of
-- the account's other keys is in it too).
local keep = 0
if consumed then
  redis.call('HSET', KEYS[1], 'u', units, 'a', at, 'd', day, 'n', used)
  -- Until the bucket is full again and the day's count no longer matters.
  -- (A refill time ahead of now, a clock that went backwards, lengthens the wait for a full bucket.)
  keep = math.max(KEEP_AT_LEAST, math.ceil((full - units) / cap) + math.max(0, at - now), (day + 1) * DAY - now)
end
if standingChanged then
  local standing = waitUntil - now
  if bans > 0 then standing = math.max(standing, bannedUntil + memory - now) end
  if standing > 0 then
    redis.call('HSET', KEYS[1], K .. 'w', waitUntil, K .. 'g', graceUntil, K .. 's', strikes, K .. 'b', bannedUntil, K .. 'c', bans, K .. 'l', lastBanAt)
    keep = math.max(keep, KEEP_AT_LEAST, standing)
  else
    redis.call('HDEL', KEYS[1], K .. 'w', K .. 'g', K .. 's', K .. 'b', K .. 'c', K .. 'l')
  end
end
if keep > 0 and redis.call('PTTL', KEYS[1]) < keep then redis.call('PEXPIRE', KEYS[1], keep) end
return { verdict, wait, units, at, day, used, bannedUntil, now }`

/**
 * KEYS: the bucket of a client address. ARGV: per minute, now (−1: Redis's clock).
 * Returns: wait ms (0: allowed), units, refill time, now.
 */
export const ADMIT_ADDRESS = `${NOW(2)}
local cap = tonumber(ARGV[1])
local full = cap * UNIT
local b = redis.call('HMGET', KEYS[1], 'u', 'a')
local units, at = full, now
if b[1] then units, at = tonumber(b[1]), tonumber(b[2]) end
if now > at then units = math.min(full, units + (now - at) * cap); at = now end
local wait = 0
if units < UNIT then
  wait = math.ceil((UNIT - units) / cap)
else
  units = units - UNIT
  redis.call('HSET', KEYS[1], 'u', units, 'a', at)
  redis.call('PEXPIRE', KEYS[1], math.max(KEEP_AT_LEAST, math.ceil((full - units) / cap) + math.max(0, at - now)))
end
return { wait, units, at, now }`
