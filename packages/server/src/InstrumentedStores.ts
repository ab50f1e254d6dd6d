/**
 * Store calls measured and traced: one wrapper for every store port (PetRepository, AccountStore,
 * MessageStore, LimiterStateStore ...). Each effect-returning method of the wrapped service records
 * its duration and its errors (`petstore_store_operation_duration_seconds`,
 * `petstore_store_errors_total`) and, when tracing is on, runs in a span
 * `store.<Store>.<operation>`. Applied by the composition root to the stores it builds, so the
 * core and the adapters know nothing of it.
 *
 * A call answerable at once (memory, a cache, a synchronous read) stays so, timed when it runs,
 * with tracing off or on (a span does not make Effect 4 wait); with tracing on it runs in its span.
 *
 * @since 1.0.0
 */
import { AccountStore, IdempotencyStore, LimiterStateStore, MessageStore, PetRepository } from "@petstore/core"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Option from "effect/Option"
import type { Metrics, StoreOperationCells } from "./Metrics.js"

/** What an instrumented store records: metrics, and spans when tracing. */
export interface InstrumentOptions {
  /** Where durations and errors are counted; none: only tracing. */
  readonly metrics?: Metrics | undefined
  /** Run each call in a span `store.<Store>.<operation>` (Effect's tracer; exported when one is installed). */
  readonly tracing: boolean
}

/** A store failure worth counting: the store could not be reached, or a defect; not a domain answer (KeyNotFound ...). */
const isStoreError = (cause: Cause.Cause<unknown>): boolean => {
  if (Cause.hasInterruptsOnly(cause)) return false
  const failure = Cause.findErrorOption(cause)
  return Option.isNone(failure) || (typeof failure.value === "object" && failure.value !== null &&
    (failure.value as { readonly _tag?: unknown })._tag === "StoreUnavailable")
}

const record = (cells: StoreOperationCells, start: number, exit: Exit.Exit<unknown, unknown>): void => {
  cells.duration.observe((performance.now() - start) / 1000)
  if (Exit.isFailure(exit) && isStoreError(exit.cause)) cells.errors++
}

/** The call `call` makes, timed when it runs (from its start to its exit), and run in `span` when given. */
const observed = <A, E, R>(
  call: () => Effect.Effect<A, E, R>,
  cells: StoreOperationCells | undefined,
  span: string | undefined
): Effect.Effect<A, E, R> => {
  const timed = cells === undefined ? Effect.suspend(call) : Effect.suspend(() => {
    const start = performance.now()
    let effect: Effect.Effect<A, E, R>
    try {
      effect = call()
    } catch (defect) {
      // A method that throws instead of answering: timed and counted as a defect, then thrown on.
      record(cells, start, Exit.die(defect))
      throw defect
    }
    return Effect.onExit(effect, (exit) => Effect.sync(() => ((exit) => record(cells, start, exit))(exit)))
  })
  return span === undefined ? timed : Effect.withSpan(timed, span, { kind: "client" })
}

/**
 * `service` with each effect-returning method (and each effect-valued member) measured and traced
 * as `store.<store>.<operation>`; other members are passed through.
 */
export const instrument = <S extends object>(store: string, service: S, options: InstrumentOptions): S => {
  if (options.metrics === undefined && !options.tracing) return service
  const wrapped: Record<string, unknown> = {}
  for (const [operation, member] of Object.entries(service)) {
    const cells = options.metrics?.storeOperation(store, operation)
    const span = options.tracing ? `store.${store}.${operation}` : undefined
    if (Effect.isEffect(member)) {
      // An effect value (`countAccounts`, `nextClaimAt`) is timed each time it runs.
      wrapped[operation] = observed(() => member, cells, span)
    } else if (typeof member === "function") {
      const method = member as (...args: Array<unknown>) => Effect.Effect<unknown, unknown>
      // Store methods take a few arguments (at most 4): passed as they are, no array is made per call.
      wrapped[operation] = method.length >= 1 && method.length <= 4
        ? (a: unknown, b: unknown, c: unknown, d: unknown) => observed(() => method.call(service, a, b, c, d), cells, span)
        : (...args: Array<unknown>) => observed(() => method.apply(service, args), cells, span)
    } else {
      wrapped[operation] = member
    }
  }
  return wrapped as S
}

/** The store ports wrapped, with the name each is measured and traced under. */
const PORTS = [
  [PetRepository.PetRepository, "PetRepository"],
  [AccountStore.AccountStore, "AccountStore"],
  [MessageStore.MessageStore, "MessageStore"],
  [LimiterStateStore.LimiterStateStore, "LimiterStateStore"],
  [IdempotencyStore.IdempotencyStore, "IdempotencyStore"]
] as const

/** Replaces each store port `context` holds with its instrumented version. */
export const instrumentContext = <A>(context: Context.Context<A>, options: InstrumentOptions): Context.Context<A> => {
  let result = context
  for (const [tag, name] of PORTS) {
    const found = Context.getOption(context as Context.Context<unknown>, tag as Context.Key<unknown, object>)
    if (Option.isSome(found)) {
      result = Context.add(result, tag as Context.Key<unknown, object>, instrument(name, found.value, options)) as Context.Context<A>
    }
  }
  return result
}
