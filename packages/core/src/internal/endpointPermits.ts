/**
 * Permits for the POSTs in flight to one endpoint, handed to those waiting in the order they came:
 * a permit given back goes straight to the first waiter, and none is taken at once while anyone
 * waits, so no delivery is overtaken for ever. (Effect's semaphore wakes its waiters in a later task,
 * and a taker arriving meanwhile gets the permit first.)
 *
 * @internal
 */
import * as Effect from "effect/Effect"

interface Waiter {
  resume: (effect: Effect.Effect<void>) => void
  /** The permit was handed to it. */
  granted: boolean
}

export interface EndpointPermits {
  /** A permit now, when one is free and nobody waits; false otherwise. */
  readonly tryTake: () => boolean
  /** A permit after the waiters before this one (interrupted, it takes none, or passes on the one handed to it). */
  readonly take: Effect.Effect<void>
  /** Gives a permit back: to the first waiter, or free. */
  readonly release: () => void
}

/** `permits` permits, all free. */
export const make = (permits: number): EndpointPermits => {
  let free = permits
  const waiters: Array<Waiter> = []
  const release = () => {
    const next = waiters.shift()
    if (next === undefined) {
      free++
      return
    }
    next.granted = true
    next.resume(Effect.void)
  }
  const tryTake = () => {
    if (free === 0 || waiters.length > 0) return false
    free--
    return true
  }
  return {
    tryTake,
    // The wait alone is interruptible. A waiter interrupted while it waits leaves the line; one
    // interrupted after a permit was handed to it but before it went on passes the permit to the
    // next. Once `take` has answered, the permit is the caller's (run it where nothing interrupts
    // between the permit taken and its release made sure).
    take: Effect.suspend(() => {
      if (tryTake()) return Effect.void
      const waiter: Waiter = { resume: () => {}, granted: false }
      const leave = Effect.sync(() => {
        const at = waiters.indexOf(waiter)
        if (at >= 0) waiters.splice(at, 1)
        else if (waiter.granted) release()
      })
      const wait = Effect.callback<void>((resume) => {
        waiter.resume = resume
        waiters.push(waiter)
      })
      return Effect.uninterruptible(Effect.onInterrupt(Effect.interruptible(wait), () => leave))
    }),
    release
  }
}
