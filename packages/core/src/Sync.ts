/**
 * The one module that knows when an effect can be answered without a fiber.
 *
 * Most requests complete without waiting: a key found in memory or a cache, the in-memory limiter,
 * a kept page, an in-memory write. Running such a request in a fiber costs more than the request
 * itself, so the request runner (`Sync.run`) takes these answers at once and forks a fiber only
 * for the rest. Everything else in the project builds and composes effects through this module and
 * never looks at how an effect was made.
 *
 * The convention every port adapter follows: work that completes synchronously is built with
 * `Sync.sync` (cannot fail), `Sync.attempt` (a throw becomes a typed failure) or `Sync.suspend` (a
 * choice made when it runs, such as a cache hit or a query); a value already known is
 * `Sync.succeed` or `Sync.fail`. These are ordinary lazy effects (run by a fiber they behave as
 * `Effect.sync`, `Effect.try` and `Effect.suspend`) carrying a step that `Sync.run` and `Sync.now`
 * can take at once. A wait for a callback (a Redis round trip) is `Sync.callback`: `Sync.run` waits
 * for it without a fiber and takes what follows it at once when it comes. Any other effect (a
 * query) is left to a fiber.
 *
 * Composed with `Sync.flatMap`, `Sync.map`, `Sync.match`, `Sync.tap`, `Sync.catchAllCause` and
 * `Sync.onPending`, a chain of such effects stays answerable at once, and stays lazy: nothing runs
 * before the chain is run, and it runs each time it is.
 *
 * @since 1.0.0
 */
import * as Cause from "effect/Cause"
import * as Chunk from "effect/Chunk"
import * as Effect from "effect/Effect"
import * as Effectable from "effect/Effectable"
import * as Result from "effect/Result"
import * as Exit from "effect/Exit"
import type * as Fiber from "effect/Fiber"

/**
 * Work made by this module: an effect (run by a fiber, it is what `commit` returns, built only
 * then) with a `step` that runs it now, giving its answer (an `Exit`) or the effect still to run.
 * One small object per piece of work, of a class of its own: nothing else is built unless a fiber
 * has to run it.
 */
abstract class Lazy<A, E, R> extends Effectable.Class<A, E, R> {
  abstract step(): Effect.Effect<A, E, R>
}

/**
 * An answer already there. `Exit.isExit`'s test, without its checks that `self` is an object and an
 * effect (it is one here): this runs several times per request.
 */
const answered = <A, E, R>(self: Effect.Effect<A, E, R>): self is Exit.Exit<A, E> => {
  const tag = (self as { readonly _tag?: unknown })._tag
  return tag === "Success" || tag === "Failure"
}

/** A failure kept as it is under another success type (it carries no value). */
const failed = <B, E>(exit: Exit.Failure<unknown, E>): Exit.Exit<B, E> => exit as Exit.Exit<never, E>

/**
 * Runs `self` now as far as it goes without waiting: its answer (an `Exit`), or the effect that
 * still has to run in a fiber. Call it only where `self` is being run (inside `Sync.suspend`, or a
 * request's runner), exactly once: the work happens here. A step that throws throws to the caller.
 */
export const now = <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  self instanceof Lazy ? self.step() : self

/** A value already known. */
export const succeed = <A>(value: A): Effect.Effect<A> => Exit.succeed(value)

/** A failure already known. */
export const fail = <E>(error: E): Effect.Effect<never, E> => Exit.fail(error)

/**
 * A wait for a callback and what follows it, begun where it is run: `Sync.run` registers for the
 * callback itself (no fiber) and takes `next` of the exit it is given as far as it goes; a fiber
 * runs it as `Effect.callback`. Combinators put their own step after `next` (`andThen`), so a chain
 * that waits for a callback stays without a fiber as long as nothing else in it waits.
 */
class Pending<A, E, R> extends Effectable.Class<A, E, R> {
  constructor(
    readonly register: (resume: (exit: Exit.Exit<any, any>) => void) => void,
    readonly next: (exit: Exit.Exit<any, any>) => Effect.Effect<A, E, R>
  ) {
    super()
  }
  /** What follows the exit: `next`'s, a throw made a defect (as a fiber reports one). */
  resume(exit: Exit.Exit<any, any>): Effect.Effect<A, E, R> {
    try {
      return this.next(exit)
    } catch (defect) {
      return Exit.die(defect)
    }
  }
  /** The same wait, with `settle` applied to what follows it. */
  andThen<B, E2, R2>(settle: (result: Effect.Effect<A, E, R>) => Effect.Effect<B, E2, R2>): Pending<B, E2, R2> {
    return new Pending(this.register, (exit) => settle(this.resume(exit)))
  }
  commit(): Effect.Effect<A, E, R> {
    return Effect.flatMap(Effect.exit(Effect.callback<unknown, unknown>(this.register)), this.next)
  }
}

const identity = <A, E>(exit: Exit.Exit<A, E>): Effect.Effect<A, E> => exit

/**
 * `Effect.callback`, waited for without a fiber by `Sync.run`: `register` begins the work when the
 * effect runs (each time it does) and calls `resume` once with its exit.
 */
export const callback = <A, E>(register: (resume: (exit: Exit.Exit<A, E>) => void) => void): Effect.Effect<A, E> =>
  new Callback(register)

class Callback<A, E> extends Lazy<A, E, never> {
  constructor(readonly register: (resume: (exit: Exit.Exit<A, E>) => void) => void) {
    super()
  }
  step(): Effect.Effect<A, E> {
    return new Pending<A, E, never>(this.register, identity)
  }
  commit() {
    return Effect.callback<A, E>(this.register)
  }
}

/** `Effect.sync(evaluate)`, answerable at once: work that completes synchronously and cannot fail (a throw is a defect). */
export const sync = <A>(evaluate: () => A): Effect.Effect<A> => new SyncWork(evaluate)

class SyncWork<A> extends Lazy<A, never, never> {
  constructor(readonly evaluate: () => A) {
    super()
  }
  step() {
    return Exit.succeed(this.evaluate())
  }
  commit() {
    return Effect.sync(this.evaluate)
  }
}

/** `Effect.try`, answerable at once: synchronous work whose throw is the failure `onThrow` makes of it. */
export const attempt = <A, E>(evaluate: () => A, onThrow: (thrown: unknown) => E): Effect.Effect<A, E> =>
  new Attempt(evaluate, onThrow)

class Attempt<A, E> extends Lazy<A, E, never> {
  constructor(readonly evaluate: () => A, readonly onThrow: (thrown: unknown) => E) {
    super()
  }
  step(): Exit.Exit<A, E> {
    let value: A
    try {
      value = this.evaluate()
    } catch (thrown) {
      return Exit.fail(this.onThrow(thrown))
    }
    return Exit.succeed(value)
  }
  commit() {
    return Effect.try({ try: this.evaluate, catch: this.onThrow })
  }
}

/**
 * `Effect.suspend(make)`, answerable at once as far as the effect `make` returns is: the choice of
 * what to do is made when it runs (a cache hit answered at once, a miss that queries).
 */
export const suspend = <A, E, R>(make: () => Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => new Suspend(make)

class Suspend<A, E, R> extends Lazy<A, E, R> {
  constructor(readonly make: () => Effect.Effect<A, E, R>) {
    super()
  }
  step() {
    return now(this.make())
  }
  commit() {
    return Effect.suspend(this.make)
  }
}

/** `Effect.flatMap`, answerable at once when `self` and `f`'s effect are. */
export const flatMap = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => {
  if (answered(self)) return Exit.isSuccess(self) ? f(self.value) : failed(self)
  return self instanceof Lazy ? new FlatMap(self, f) : settleFlatMap(self, f)
}

/**
 * After `result` (already run as far as it goes): `f`'s effect taken at once as far as it goes. Once
 * `result` has waited in a fiber, the fiber too takes what `f` makes at once (`now`), as `Sync.run`
 * does, rather than step by step.
 */
const settleFlatMap = <A, E, R, B, E2, R2>(
  result: Effect.Effect<A, E, R>,
  f: (a: A) => Effect.Effect<B, E2, R2>
): Effect.Effect<B, E | E2, R | R2> => {
  if (answered(result)) return Exit.isSuccess(result) ? now(f(result.value)) : failed(result)
  if (result instanceof Pending) return result.andThen((next) => settleFlatMap(next, f))
  return Effect.flatMap(result, (a) => now(f(a)))
}

class FlatMap<A, E, R, B, E2, R2> extends Lazy<B, E | E2, R | R2> {
  constructor(readonly self: Effect.Effect<A, E, R>, readonly f: (a: A) => Effect.Effect<B, E2, R2>) {
    super()
  }
  step(): Effect.Effect<B, E | E2, R | R2> {
    return settleFlatMap(now(this.self), this.f)
  }
  commit() {
    return Effect.flatMap(this.self, this.f)
  }
}

/** `Effect.map`, answerable at once when `self` is. */
export const map = <A, E, R, B>(self: Effect.Effect<A, E, R>, f: (a: A) => B): Effect.Effect<B, E, R> => {
  if (answered(self)) return Exit.isSuccess(self) ? Exit.succeed(f(self.value)) : failed(self)
  return self instanceof Lazy ? new MapWork(self, f) : settleMap(self, f)
}

const settleMap = <A, E, R, B>(result: Effect.Effect<A, E, R>, f: (a: A) => B): Effect.Effect<B, E, R> => {
  if (answered(result)) return Exit.isSuccess(result) ? Exit.succeed(f(result.value)) : failed(result)
  if (result instanceof Pending) return result.andThen((next) => settleMap(next, f))
  return Effect.map(result, f)
}

class MapWork<A, E, R, B> extends Lazy<B, E, R> {
  constructor(readonly self: Effect.Effect<A, E, R>, readonly f: (a: A) => B) {
    super()
  }
  step(): Effect.Effect<B, E, R> {
    return settleMap(now(this.self), this.f)
  }
  commit() {
    return Effect.map(this.self, this.f)
  }
}

/** `Effect.tap` with a synchronous `f`, answerable at once when `self` is. */
export const tap = <A, E, R>(self: Effect.Effect<A, E, R>, f: (a: A) => void): Effect.Effect<A, E, R> =>
  self instanceof Lazy ? new Tap(self, f) : settleTap(self, f)

const settleTap = <A, E, R>(result: Effect.Effect<A, E, R>, f: (a: A) => void): Effect.Effect<A, E, R> => {
  if (answered(result)) {
    // The same answer, told to `f` (no new one is made).
    if (Exit.isSuccess(result)) f(result.value)
    return result
  }
  if (result instanceof Pending) return result.andThen((next) => settleTap(next, f))
  return Effect.tap(result, (a) => void f(a))
}

class Tap<A, E, R> extends Lazy<A, E, R> {
  constructor(readonly self: Effect.Effect<A, E, R>, readonly f: (a: A) => void) {
    super()
  }
  step(): Effect.Effect<A, E, R> {
    return settleTap(now(this.self), this.f)
  }
  commit() {
    return Effect.tap(this.self, (a) => void this.f(a))
  }
}

interface MatchOptions<A, E, B, C> {
  readonly onFailure: (error: E) => B
  readonly onSuccess: (value: A) => C
}

/** `Effect.match` of an answer already there. */
const matchExit = <A, E, B, C>(
  exit: Exit.Exit<A, E>,
  options: MatchOptions<A, E, B, C>
): Exit.Exit<B | C> => {
  if (Exit.isSuccess(exit)) return Exit.succeed(options.onSuccess(exit.value))
  // As `Effect.match`: a defect wins over failures (which then count as defects too).
  if (Chunk.isNonEmpty(Cause.defects(exit.cause))) return Exit.failCause(Cause.flatMap(exit.cause, Cause.die))
  return Result.match(Cause.failureOrCause(exit.cause), {
    onFailure: (error) => Exit.succeed(options.onFailure(error)),
    onSuccess: (cause) => Exit.failCause(cause)
  })
}

/** `Effect.match`, answerable at once when `self` is (defects and interruptions pass through). */
export const match = <A, E, R, B, C>(
  self: Effect.Effect<A, E, R>,
  options: MatchOptions<A, E, B, C>
): Effect.Effect<B | C, never, R> => self instanceof Lazy ? new Match(self, options) : settleMatch(self, options)

const settleMatch = <A, E, R, B, C>(
  result: Effect.Effect<A, E, R>,
  options: MatchOptions<A, E, B, C>
): Effect.Effect<B | C, never, R> => {
  if (answered(result)) return matchExit(result, options)
  if (result instanceof Pending) return result.andThen((next) => settleMatch(next, options))
  return Effect.match(result, options)
}

class Match<A, E, R, B, C> extends Lazy<B | C, never, R> {
  constructor(readonly self: Effect.Effect<A, E, R>, readonly options: MatchOptions<A, E, B, C>) {
    super()
  }
  step(): Effect.Effect<B | C, never, R> {
    return settleMatch(now(this.self), this.options)
  }
  commit() {
    return Effect.match(this.self, this.options)
  }
}

/**
 * `Effect.catchCause`, answerable at once when `self` and the handler's effect are. Run at once,
 * a step of `self` that throws is caught here as a defect, as a fiber would report it.
 */
export const catchAllCause = <A, E, R, B, E2, R2>(
  self: Effect.Effect<A, E, R>,
  handler: (cause: Cause.Cause<E>) => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E2, R | R2> =>
  self instanceof Lazy ? new CatchAllCause(self, handler) : settleCause(self, handler)

class CatchAllCause<A, E, R, B, E2, R2> extends Lazy<A | B, E2, R | R2> {
  constructor(readonly self: Effect.Effect<A, E, R>, readonly handler: (cause: Cause.Cause<E>) => Effect.Effect<B, E2, R2>) {
    super()
  }
  step(): Effect.Effect<A | B, E2, R | R2> {
    let result: Effect.Effect<A, E, R>
    try {
      result = now(this.self)
    } catch (defect) {
      result = Exit.die(defect)
    }
    return settleCause(result, this.handler)
  }
  commit() {
    return Effect.catchCause(this.self, this.handler)
  }
}

const settleCause = <A, E, R, B, E2, R2>(
  result: Effect.Effect<A, E, R>,
  handler: (cause: Cause.Cause<E>) => Effect.Effect<B, E2, R2>
): Effect.Effect<A | B, E2, R | R2> => {
  if (result instanceof Pending) return result.andThen((next) => settleCause(next, handler))
  if (!answered(result)) return Effect.catchCause(result, handler)
  // A success carries no error: kept as it is.
  return Exit.isSuccess(result) ? (result as Exit.Exit<A>) : now(handler(result.cause))
}

/**
 * The first value that is not `undefined` among `steps[0](input)`, `steps[1](input)`, … run in
 * order (none: `undefined`); a failure ends the list. Answerable at once as far as the steps are.
 * Call it where the steps are being run.
 */
export const firstDefined = <I, A, E, R>(
  steps: ReadonlyArray<(input: I) => Effect.Effect<A | undefined, E, R>>,
  input: I,
  from = 0
): Effect.Effect<A | undefined, E, R> => {
  for (let index = from; index < steps.length; index++) {
    const result = now(steps[index]!(input))
    if (!answered(result)) return settleFirst(result, steps, input, index + 1)
    if (Exit.isFailure(result) || result.value !== undefined) return result
  }
  return Exit.succeed(undefined)
}

/** After a step that waits (`result`): its value, or the steps from `from` on. */
const settleFirst = <I, A, E, R>(
  result: Effect.Effect<A | undefined, E, R>,
  steps: ReadonlyArray<(input: I) => Effect.Effect<A | undefined, E, R>>,
  input: I,
  from: number
): Effect.Effect<A | undefined, E, R> => {
  if (answered(result)) {
    return Exit.isFailure(result) || result.value !== undefined ? result : firstDefined(steps, input, from)
  }
  if (result instanceof Pending) return result.andThen((next) => settleFirst(next, steps, input, from))
  return Effect.flatMap(result, (value) => (value === undefined ? firstDefined(steps, input, from) : Exit.succeed(value)))
}

/**
 * `Sync.suspend(() => make(input))` without a closure made per call: `make` (made once) is applied
 * to `input` when the effect runs, and each time it does.
 */
export const suspendWith = <I, A, E, R>(make: (input: I) => Effect.Effect<A, E, R>, input: I): Effect.Effect<A, E, R> =>
  new SuspendWith(make, input)

class SuspendWith<I, A, E, R> extends Lazy<A, E, R> {
  constructor(readonly make: (input: I) => Effect.Effect<A, E, R>, readonly input: I) {
    super()
  }
  step() {
    return now(this.make(this.input))
  }
  commit() {
    return this.make(this.input)
  }
}

/**
 * `self`, with `f` applied to it only if it has to wait for a fiber: for what only a fiber has
 * (log annotations, a span), skipped when the answer comes at once, or after a callback
 * `Sync.run` waits for itself.
 */
export const onPending = <A, E, R>(
  self: Effect.Effect<A, E, R>,
  f: (pending: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => self instanceof Lazy ? new OnPending(self, f) : settlePending(self, f)

const settlePending = <A, E, R>(
  result: Effect.Effect<A, E, R>,
  f: (pending: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  if (answered(result)) return result
  if (result instanceof Pending) return result.andThen((next) => settlePending(next, f))
  return f(result)
}

class OnPending<A, E, R> extends Lazy<A, E, R> {
  constructor(readonly self: Effect.Effect<A, E, R>, readonly f: (pending: Effect.Effect<A, E, R>) => Effect.Effect<A, E, R>) {
    super()
  }
  step() {
    return settlePending(now(this.self), this.f)
  }
  commit() {
    return this.f(this.self)
  }
}

/**
 * `self`, with `f` told its exit when it completes (at once or in a fiber), its result unchanged;
 * an interrupted run is not told. Lazy like `self`: `f` is told each time it runs. Run at once, a
 * step that throws is told as a defect, then thrown on.
 */
export const onExit = <A, E, R>(self: Effect.Effect<A, E, R>, f: (exit: Exit.Exit<A, E>) => void): Effect.Effect<A, E, R> =>
  self instanceof Lazy || answered(self) || self instanceof Pending ? new OnExit(self, f) : observe(self, f)

// `exit` then `flatMap` costs about half of `Effect.onExit` (no uninterruptible region).
const observe = <A, E, R>(effect: Effect.Effect<A, E, R>, f: (exit: Exit.Exit<A, E>) => void) =>
  Effect.flatMap(Effect.exit(effect), (exit) => {
    f(exit)
    return exit
  })

const settleExit = <A, E, R>(result: Effect.Effect<A, E, R>, f: (exit: Exit.Exit<A, E>) => void): Effect.Effect<A, E, R> => {
  if (answered(result)) {
    f(result)
    return result
  }
  if (result instanceof Pending) return result.andThen((next) => settleExit(next, f))
  return observe(result, f)
}

class OnExit<A, E, R> extends Lazy<A, E, R> {
  constructor(readonly self: Effect.Effect<A, E, R>, readonly f: (exit: Exit.Exit<A, E>) => void) {
    super()
  }
  step() {
    let result: Effect.Effect<A, E, R>
    try {
      result = now(this.self)
    } catch (defect) {
      this.f(Exit.die(defect))
      throw defect
    }
    return settleExit(result, this.f)
  }
  commit() {
    return observe(this.self, this.f)
  }
}

/**
 * The request runner's one decision: runs `self` now, and hands its answer to `done` at once when
 * it completes without waiting; waits for a callback itself (`Sync.callback`) and goes on the same
 * way when it comes; otherwise `fork` runs the rest in a fiber and `done` gets its exit. A step that
 * throws is answered as a defect.
 */
export const run = <A, E>(
  self: Effect.Effect<A, E>,
  fork: (effect: Effect.Effect<A, E>) => Fiber.Fiber<A, E>,
  done: (exit: Exit.Exit<A, E>) => void
): void => {
  let result: Effect.Effect<A, E>
  try {
    result = now(self)
  } catch (defect) {
    result = Exit.die(defect)
  }
  settleRun(result, fork, done)
}

const settleRun = <A, E>(
  result: Effect.Effect<A, E>,
  fork: (effect: Effect.Effect<A, E>) => Fiber.Fiber<A, E>,
  done: (exit: Exit.Exit<A, E>) => void
): void => {
  if (answered(result)) return done(result)
  if (result instanceof Pending) {
    const pending = result as Pending<A, E, never>
    // As `Effect.callback`: the first resume counts, and a register that throws is a defect. A resume
    // during `register` (or its throw) is taken once `register` has returned, outside its `try`, and
    // goes through the steps chained after the wait like any other.
    let resumed = false
    let registering = true
    let early: Exit.Exit<A, E> | undefined
    try {
      pending.register((exit) => {
        if (resumed) return
        resumed = true
        if (registering) early = exit
        else settleRun(pending.resume(exit), fork, done)
      })
    } catch (defect) {
      if (!resumed) {
        resumed = true
        early = Exit.die(defect)
      }
    }
    registering = false
    if (early !== undefined) settleRun(pending.resume(early), fork, done)
    return
  }
  fork(result).addObserver(done)
}
