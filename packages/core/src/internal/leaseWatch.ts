/**
 * The lease's guard for the queue's workers, without a fiber per attempt: one watch fiber sleeps
 * until the earliest lease ends among the attempts in hand and interrupts the worker whose attempt
 * outlived its lease. A worker runs inside a supervisor that starts a new one after such a cut (an
 * interrupted fiber cannot go on), so the number of workers never falls.
 *
 * Racing each attempt against a timer (`Effect.timeout`) forks two fibers per attempt and joins
 * their fiber-local state back; at hundreds of attempts a second that is a fifth of the worker's CPU.
 *
 * @internal
 */
import * as Clock from "effect/Clock"
import * as Cause from "effect/Cause"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"

/** One worker's attempt in hand. */
export interface Slot {
  /** When the attempt's lease ends (epoch ms); Infinity between attempts. */
  deadline: number
  /** The watch interrupted the worker because the attempt outlived its lease. */
  cut: boolean
  /** The worker's fiber, the one the watch interrupts. */
  fiber: Fiber.Fiber<unknown, unknown> | undefined
}

export interface LeaseWatch {
  /** A slot for one more worker. */
  readonly slot: () => Slot
  /** The slot's attempt starts, to be cut at `deadline` (epoch ms). */
  readonly begin: (slot: Slot, deadline: number) => Effect.Effect<void>
  /** The slot's attempt ended (whatever its outcome): nothing to cut any more. */
  readonly end: (slot: Slot) => void
  /**
   * Runs `worker` for `slot` until it ends, in a fiber of its own, started again each time the watch
   * cut it. Ends as the worker ends otherwise (done, failed, or interrupted from outside).
   */
  readonly supervise: <E>(slot: Slot, worker: Effect.Effect<void, E>) => Effect.Effect<void, E>
}

/** The watch, running in the current scope (interrupted when it closes). */
export const make: Effect.Effect<LeaseWatch, never, Scope.Scope> = Effect.gen(function*() {
  const slots: Array<Slot> = []
  // Told when an attempt begins while the watch has nothing to watch (it then sleeps on this).
  const armed = yield* Queue.sliding<void>(1)
  let watching = false

  // One synchronous look: the overdue slots are marked cut and their workers interrupted in the same
  // step (no attempt can end or begin in between); answers how long until the next lease ends.
  const look = (now: number, id: number) => {
    let next = Infinity
    for (const slot of slots) {
      if (slot.deadline <= now) {
        slot.deadline = Infinity
        slot.cut = true
        slot.fiber?.interruptUnsafe(id)
      } else if (slot.deadline < next) next = slot.deadline
    }
    watching = next !== Infinity
    return next - now
  }

  const watch = Effect.gen(function*() {
    const id = yield* Effect.fiberId
    const clock = yield* Clock.Clock
    while (true) {
      const waitMillis = look(clock.currentTimeMillisUnsafe(), id)
      if (waitMillis === Infinity) yield* Queue.take(armed)
      else yield* Effect.sleep(Duration.millis(waitMillis))
    }
  })
  // Layers are built uninterruptibly and forked fibers inherit that: the watch must stop with the scope.
  yield* Effect.forkScoped(Effect.interruptible(watch))

  return {
    slot: () => {
      const slot: Slot = { deadline: Infinity, cut: false, fiber: undefined }
      slots.push(slot)
      return slot
    },
    begin: (slot, deadline) =>
      Effect.suspend(() => {
        slot.deadline = deadline
        if (watching) return Effect.void
        watching = true
        return Queue.offer(armed, undefined)
      }),
    end: (slot) => {
      slot.deadline = Infinity
    },
    supervise: <E>(slot: Slot, worker: Effect.Effect<void, E>) =>
      Effect.gen(function*() {
        while (true) {
          const fiber = yield* Effect.forkChild(Effect.interruptible(worker))
          slot.fiber = fiber
          const exit = yield* Fiber.await(fiber)
          if (!slot.cut) return yield* exit
          slot.cut = false
        }
      }).pipe(Effect.asVoid) as Effect.Effect<void, E>
  }
})

/**
 * When to cut an attempt whose claim is leased until `leaseUntil` for `leaseMillis`: a tenth of the
 * lease (a second at most) before it ends, so the cut attempt's outcome is recorded before another
 * worker may claim the message again.
 */
export const cutAt = (leaseUntil: number, leaseMillis: number): number => leaseUntil - Math.min(1_000, Math.floor(leaseMillis / 10))

/** Whether `exit` is the interruption the watch made (the attempt outlived its lease). */
export const wasCut = (slot: Slot, exit: Exit.Exit<unknown, unknown>): boolean =>
  slot.cut && Exit.isFailure(exit) && Cause.hasInterruptsOnly(exit.cause)
