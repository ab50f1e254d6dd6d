-- wrk script of the bench: method, body and Authorization from the environment, and one JSON line
-- with the counts and latency percentiles (microseconds) at the end, for bench/run.mjs to read.
-- With BENCH_QUANTILES=1, the line also holds a grid of percentiles ([percent, microseconds]: every
-- 1 % up to 99, every 0.1 % up to 99.9, then 99.95, 99.99 and the maximum), from which the runner
-- merges the latencies of several wrk processes run side by side (one per instance of a target).
wrk.method = os.getenv("BENCH_METHOD") or "GET"
local body = os.getenv("BENCH_BODY")
if body ~= nil and body ~= "" then
  wrk.body = body
  wrk.headers["Content-Type"] = "application/json"
end
local auth = os.getenv("BENCH_AUTH")
if auth ~= nil and auth ~= "" then
  wrk.headers["Authorization"] = auth
end

local quantiles = os.getenv("BENCH_QUANTILES") == "1"

-- With BENCH_IDEMPOTENCY_PREFIX, every request carries a new Idempotency-Key (the prefix, then a count).
local keyPrefix = os.getenv("BENCH_IDEMPOTENCY_PREFIX")
if keyPrefix ~= nil and keyPrefix ~= "" then
  local sent = 0
  request = function()
    sent = sent + 1
    wrk.headers["Idempotency-Key"] = keyPrefix .. sent
    return wrk.format(nil, nil, wrk.headers, wrk.body)
  end
end

local grid = function(latency)
  local points = { string.format("[0,%d]", latency.min) }
  local add = function(p) points[#points + 1] = string.format("[%g,%d]", p, latency:percentile(p)) end
  for p = 1, 99 do add(p) end
  for k = 1, 9 do add(99 + k / 10) end
  add(99.95)
  add(99.99)
  points[#points + 1] = string.format("[100,%d]", latency.max)
  return ",\"quantilesMicros\":[" .. table.concat(points, ",") .. "]"
end

done = function(summary, latency, requests)
  local e = summary.errors
  io.write(string.format(
    "BENCH_JSON {\"requests\":%d,\"durationMicros\":%d,\"bytes\":%d," ..
      "\"errors\":{\"connect\":%d,\"read\":%d,\"write\":%d,\"status\":%d,\"timeout\":%d}," ..
      "\"latencyMicros\":{\"p50\":%d,\"p90\":%d,\"p99\":%d,\"p999\":%d,\"max\":%d,\"mean\":%.1f}%s}\n",
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    latency:percentile(50), latency:percentile(90), latency:percentile(99), latency:percentile(99.9),
    latency.max, latency.mean, quantiles and summary.requests > 0 and grid(latency) or ""))
end
