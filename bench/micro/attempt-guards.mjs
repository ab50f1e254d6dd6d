// What guarding one webhook attempt costs, on Effect 4: the lease's cut (the queue's lease watch,
// `internal/leaseWatch.ts`, against `Effect.timeout` per attempt) and the endpoint's permit (the
// permit pool, `internal/endpointPermits.ts`, against Effect's `Semaphore`). Each attempt waits for
// one timer turn (`setImmediate`), as an attempt waits for its endpoint, and `CONCURRENCY` attempts
// run at once, as the queue's workers do; ns per attempt, median of the samples.
import { Duration, Effect, Fiber, Semaphore } from "effect"
import { QUICK, report } from "./harness.mjs"

const internal = (name) => import(new URL(`../../packages/core/dist/internal/${name}`, import.meta.url).href)
const LeaseWatch = await internal("leaseWatch.js")
const EndpointPermits = await internal("endpointPermits.js")

const CONCURRENCY = 32
const ATTEMPTS = QUICK ? 20_000 : 100_000
const SAMPLES = QUICK ? 3 : 7
const LEASE = Duration.seconds(30)

/** One attempt's own work: it waits for a turn of the event loop, as a POST waits for its answer. */
const work = Effect.callback((resume) => void setImmediate(() => resume(Effect.void)))

/** ns per attempt of `attempt` run ATTEMPTS times by CONCURRENCY workers (made by `make`, in a scope). */
const measure = (make) =>
  Effect.runPromise(Effect.scoped(Effect.gen(function*() {
    const attempt = yield* make
    const round = Effect.gen(function*() {
      const start = process.hrtime.bigint()
      const workers = yield* Effect.forEach(
        Array.from({ length: CONCURRENCY }),
        () => Effect.forkChild(Effect.repeat(attempt, { times: ATTEMPTS / CONCURRENCY - 1 }))
      )
      yield* Fiber.joinAll(workers)
      return Number(process.hrtime.bigint() - start) / ATTEMPTS
    })
    yield* round // warm-up
    const results = []
    for (let s = 0; s < SAMPLES; s++) results.push(yield* round)
    results.sort((a, b) => a - b)
    return results[results.length >> 1]
  })))

const cases = {
  // The attempt alone: what the guards add to.
  bare: Effect.succeed(work),
  // The queue's form: one watch per queue; each attempt marks its deadline in its worker's slot.
  leaseWatch: Effect.map(LeaseWatch.make, (watch) => {
    const slot = watch.slot()
    return Effect.andThen(
      watch.begin(slot, Date.now() + Duration.toMillis(LEASE)),
      Effect.ensuring(work, Effect.sync(() => watch.end(slot)))
    )
  }),
  // The plain form: each attempt raced against its own timer.
  timeout: Effect.succeed(Effect.timeout(work, LEASE)),
  // The delivery's form: a permit from the endpoint's pool, given back when the attempt ends.
  permitPool: Effect.sync(() => {
    const permits = EndpointPermits.make(16)
    return Effect.andThen(permits.take, Effect.ensuring(work, Effect.sync(permits.release)))
  }),
  // The plain form: Effect's semaphore.
  semaphore: Effect.map(Semaphore.make(16), (semaphore) => semaphore.withPermits(1)(work))
}

const results = []
for (const [id, make] of Object.entries(cases)) {
  results.push({ id, label: `${id}: one attempt`, value: await measure(make), unit: "ns" })
}
report("attempt guards", results)
