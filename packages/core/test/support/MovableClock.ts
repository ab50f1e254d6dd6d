/**
 * A clock a test moves by hand, for stores and limiters that read the Clock they were built with:
 * the live clock moved on by `advance` (so real I/O and timers keep working), or stopped at an
 * instant `set` gives. Build the service under it with `Effect.provideService(Clock.Clock, clock)`.
 */
import { Clock, Effect } from "effect"

export interface MovableClock {
  readonly clock: Clock.Clock
  /** Moves the clock on by `millis`. */
  readonly advance: (millis: number) => void
  /** Stops the clock at `millis` (epoch ms) until it is set again. */
  readonly set: (millis: number) => void
}

export const make = (): MovableClock => {
  const live = Clock.Clock.defaultValue()
  let offset = 0
  let stopped: number | undefined
  const millis = () => stopped ?? live.currentTimeMillisUnsafe() + offset
  const clock: Clock.Clock = {
    currentTimeMillisUnsafe: millis,
    currentTimeNanosUnsafe: () => BigInt(millis()) * 1_000_000n,
    currentTimeMillis: Effect.sync(millis),
    currentTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n),
    monotonicTimeNanosUnsafe: () => BigInt(millis()) * 1_000_000n,
    monotonicTimeNanos: Effect.sync(() => BigInt(millis()) * 1_000_000n),
    sleep: (duration) => live.sleep(duration)
  }
  return {
    clock,
    advance: (by) => void (offset += by),
    set: (at) => void (stopped = at)
  }
}
