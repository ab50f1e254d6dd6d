// A small timing harness for the micro-benchmarks: each case runs in batches until a time budget is
// spent, several samples are taken, and the median nanoseconds per operation is reported. Every
// script prints one `BENCH_MICRO {json}` line that bench/run.mjs collects.

export const QUICK = process.argv.includes("--quick")

const now = () => process.hrtime.bigint()

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 === 1 ? s[m] : (s[m - 1] + s[m]) / 2
}

// A value the optimiser cannot prove unused.
export let sink = 0
export const consume = (x) => {
  sink = (sink + (typeof x === "number" ? x : x === undefined || x === null ? 0 : 1)) | 0
}

/**
 * Median ns per call of `op(i)` over `samples` samples of about `sampleMs` each (after a warm-up).
 * `op` receives the iteration index so it can walk through prepared inputs.
 */
export const nsPerOp = (op, { sampleMs = QUICK ? 100 : 300, samples = QUICK ? 3 : 7, warmupMs = QUICK ? 100 : 300 } = {}) => {
  let i = 0
  const until = (ms) => {
    const end = now() + BigInt(ms * 1e6)
    let n = 0
    while (now() < end) {
      for (let k = 0; k < 1000; k++) consume(op(i++))
      n += 1000
    }
    return n
  }
  until(warmupMs)
  const results = []
  for (let s = 0; s < samples; s++) {
    const start = now()
    const n = until(sampleMs)
    results.push(Number(now() - start) / n)
  }
  return median(results)
}

/** Median ns per operation of a function that runs `n` operations itself (e.g. a loop inside one fiber). */
export const nsPerOpBatched = (runN, n, { samples = QUICK ? 3 : 7 } = {}) => {
  runN(n) // warm-up
  const results = []
  for (let s = 0; s < samples; s++) {
    const start = now()
    runN(n)
    results.push(Number(now() - start) / n)
  }
  return median(results)
}

export const gc = () => {
  if (typeof globalThis.gc !== "function") throw new Error("run with node --expose-gc")
  for (let k = 0; k < 4; k++) globalThis.gc()
}

/** Prints the results for bench/run.mjs: `{ id, label, value, unit, note? }` each. */
export const report = (group, results) => {
  for (const r of results) console.error(`${group}: ${r.label}: ${r.value.toFixed(r.unit === "ns" ? 0 : 2)} ${r.unit}`)
  console.log(`BENCH_MICRO ${JSON.stringify({ group, results })}`)
}
