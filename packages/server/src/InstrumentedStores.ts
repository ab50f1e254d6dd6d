/**
 * Store calls measured and traced: one wrapper for every store port (PetRepository, AccountStore,
 * MessageStore, LimiterStateStore ...). Each effect-returning method of the wrapped service records
 * its duration and its errors (`petstore_store_operation_duration_seconds`,
 * `petstore_store_errors_total`) and, when tracing is on, runs in a span
 * `store.<Store>.<operation>`. Applied by the composition root to the stores it builds, so the
 * core and the adapters know nothing of it.
 *
 * With tracing off an answer that is already there (an `Exit`: a read from memory or a cache) stays
 * one, so the core's `Sync` helpers still answer without a fiber; it is timed around the call. Work
 * that completes at once (`Sync.sync`: the in-memory pet repository) stays so too, timed when it
 * runs. With tracing on, every call runs in its span (and so in a fiber).
 *
 * @since 1.0.0
 */
import { AccountStore, LimiterStateStore, MessageStore, PetRepository, Sync } from "@petstore/core"
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import type { Metrics, StoreOperationCells } from "./Metrics.js"

export interface InstrumentOptions {
  /** Where durations and errors are counted; none: only tracing. */
  readonly metrics?: Metrics | undefined
  /** Run each call in a span `store.<Store>.<operation>` (Effect's tracer; exported when one is installed). */
  readonly tracing: boolean
}

/** A store failure worth counting: the store could not be reached, or a defect; not a domain answer (KeyNotFound ...). */
const isStoreError = (cause: Cause.Cause<unknown>): boolean => {
  if (Cause.isInterruptedOnly(cause)) return false
  const failure = Cause.failureOption(cause)
  return Option.isNone(failure) || (typeof failure.value === "object" && failure.value !== null &&
    (failure.value as { readonly _tag?: unknown })._tag === "StoreUnavailable")
}

const record = (cells: StoreOperationCells | undefined, start: number, exit: Exit.Exit<unknown, unknown>): void => {
  if (cells === undefined) return
  cells.duration.observe((performance.now() - start) / 1000)
  if (Exit.isFailure(exit) && isStoreError(exit.cause)) cells.errors++
}

/** The duration of a call that succeeded at once (no `Exit` made for it). */
const recordSuccess = (cells: StoreOperationCells | undefined, start: number): void => {
  if (cells !== undefined) cells.duration.observe((performance.now() - start) / 1000)
}

/** `effect` (already started at `start`) timed, and traced under `span` when given. */
const observed = <A, E, R>(
  effect: Effect.Effect<A, E, R>,
  cells: StoreOperationCells | undefined,
  start: number,
  span: string | undefined
): Effect.Effect<A, E, R> => {
  // `exit` then `flatMap` costs about half of `onExit` (no uninterruptible region); an interrupted
  // call is not recorded (it is neither a duration nor an error of the store).
  const timed = cells === undefined ? effect : Effect.flatMap(Effect.exit(effect), (exit) => {
    record(cells, start, exit)
    return exit
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
      wrapped[operation] = Effect.suspend(() => observed(member, cells, performance.now(), span))
    } else if (typeof member === "function") {
      const method = member as (...args: Array<unknown>) => unknown
      const thrown = (defect: unknown): unknown => {
        if (cells !== undefined) cells.errors++
        return defect
      }
      const answer = (start: number, result: unknown): unknown => {
        if (!Effect.isEffect(result)) return result
        if (span === undefined) {
          // The fast paths first: an answer already there, or work that completes at once (timed
          // when it is run, and still runnable at once: see `Sync.now`), with no span to run it in.
          if (Exit.isExit(result)) {
            record(cells, start, result)
            return result
          }
          const evaluate = Sync.evaluator(result)
          if (evaluate !== undefined) return timedAtOnce(evaluate)
        }
        return observed(result, cells, start, span)
      }
      const timedAtOnce = <A>(evaluate: () => A): Effect.Effect<A> =>
        Sync.sync(() => {
          const start = performance.now()
          let value: A
          try {
            value = evaluate()
          } catch (defect) {
            // Timed and counted as a defect, as on the fiber path.
            record(cells, start, Exit.die(defect))
            throw defect
          }
          recordSuccess(cells, start)
          return value
        })
      // Store methods take a few arguments (at most 4): passed as they are, no array is made per call.
      wrapped[operation] = method.length >= 1 && method.length <= 4
        ? (a: unknown, b: unknown, c: unknown, d: unknown) => {
          const start = performance.now()
          let result: unknown
          try {
            result = method.call(service, a, b, c, d)
          } catch (defect) {
            throw thrown(defect)
          }
          return answer(start, result)
        }
        : (...args: Array<unknown>) => {
          const start = performance.now()
          let result: unknown
          try {
            result = method.apply(service, args)
          } catch (defect) {
            throw thrown(defect)
          }
          return answer(start, result)
        }
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
  [LimiterStateStore.LimiterStateStore, "LimiterStateStore"]
] as const

/** Replaces each store port `context` holds with its instrumented version. */
export const instrumentContext = <A>(context: Context.Context<A>, options: InstrumentOptions): Context.Context<A> => {
  let result = context
  for (const [tag, name] of PORTS) {
    const found = Context.getOption(context as Context.Context<unknown>, tag as Context.Tag<unknown, object>)
    if (Option.isSome(found)) {
      result = Context.add(result, tag as Context.Tag<unknown, object>, instrument(name, found.value, options)) as Context.Context<A>
    }
  }
  return result
}

/** `stores` with every store port it provides instrumented (the layer itself when nothing is measured or traced). */
export const layer = <A, E, R>(stores: Layer.Layer<A, E, R>, options: InstrumentOptions): Layer.Layer<A, E, R> =>
  options.metrics === undefined && !options.tracing ? stores : Layer.map(stores, (context) => instrumentContext(context, options))
