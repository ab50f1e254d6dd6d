-- wrk script of the capacity runs (bench/capacity/): one operation, or a mix of them, per request.
--   BENCH_AUTH       Authorization header value (every request)
--   BENCH_MIX        "list:80,create:15,message:5" (weights; one operation alone: "get:1")
--   BENCH_PETS       the highest seeded pet id (`get` picks one of 1..BENCH_PETS)
-- Operations: list (GET /v1/pets?limit=20), create (POST /v1/pets), get (GET /v1/pets/{id}),
-- message (POST /v1/messages), usage (GET /v1/usage).
-- At the end one line `BENCH_JSON {...}`: requests, response bytes, errors, latency percentiles, and
-- the request bytes wrk wrote (each request's formatted length, summed over the threads).
local auth = os.getenv("BENCH_AUTH") or ""
local pets = tonumber(os.getenv("BENCH_PETS") or "100")
local mix = {}
local total = 0
for name, weight in string.gmatch(os.getenv("BENCH_MIX") or "list:1", "(%a+):(%d+)") do
  total = total + tonumber(weight)
  mix[#mix + 1] = { name = name, upto = total }
end

local json = { ["Content-Type"] = "application/json", ["Authorization"] = auth }
local plain = { ["Authorization"] = auth }
local build = {
  list = function() return wrk.format("GET", "/v1/pets?limit=20", plain) end,
  create = function() return wrk.format("POST", "/v1/pets", json, '{"name":"Bench","categoryId":3,"status":"pending"}') end,
  get = function() return wrk.format("GET", "/v1/pets/" .. math.random(1, pets), plain) end,
  message = function() return wrk.format("POST", "/v1/messages", json, '{"message":"capacity"}') end,
  usage = function() return wrk.format("GET", "/v1/usage", plain) end
}

local threads = {}
setup = function(thread)
  threads[#threads + 1] = thread
end

init = function()
  sent = 0
  math.randomseed(os.time() + math.floor(os.clock() * 1e6))
end

request = function()
  local r = math.random(1, total)
  local op = mix[#mix].name
  for _, m in ipairs(mix) do
    if r <= m.upto then op = m.name break end
  end
  local req = build[op]()
  sent = sent + #req
  return req
end

done = function(summary, latency, requests)
  local written = 0
  for _, t in ipairs(threads) do written = written + (t:get("sent") or 0) end
  local e = summary.errors
  io.write(string.format(
    "BENCH_JSON {\"requests\":%d,\"durationMicros\":%d,\"bytes\":%d,\"written\":%d," ..
      "\"errors\":{\"connect\":%d,\"read\":%d,\"write\":%d,\"status\":%d,\"timeout\":%d}," ..
      "\"latencyMicros\":{\"p50\":%d,\"p99\":%d}}\n",
    summary.requests, summary.duration, summary.bytes, written,
    e.connect, e.read, e.write, e.status, e.timeout, latency:percentile(50), latency:percentile(99)))
end
