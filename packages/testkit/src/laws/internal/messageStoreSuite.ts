/**
 * What the laws of `MessageStore` share: the generators of messages, the helpers over a store, and the
 * suite of one implementation.
 */
import * as fc from "fast-check"
import { expect } from "@effect/vitest"
import { Effect, type Layer, Option } from "effect"
import { type Errors, Message, MessageStore } from "@petstore/core"
import { fromSchema } from "../../arbitraries/FromSchema.js"
import type { LawSuiteOptions } from "../LawSuite.js"
import { base62, instant, numRuns, text } from "./support.js"

export type Store = MessageStore.MessageStore["Service"]
export type StoredMessage = MessageStore.StoredMessage

export const lease = fc.integer({ min: 1, max: 3_600_000 })

/**
 * `count` messages with distinct ids and strictly increasing `createdAt` (insertion order and age
 * agree), each queued with its own `availableAt` within ±`spread` ms of `around`; ids start with `idPrefix`.
 */
export const queued = (
  count: { readonly min: number; readonly max: number },
  around: number,
  spread: number,
  idPrefix = "msg"
) =>
  fc.array(
    fc.record({
      suffix: base62(10),
      accountId: base62(22).map((s) => `acc_${s}`),
      message: text({ maxLength: 200 }),
      gap: fc.integer({ min: 1, max: 60_000 }),
      available: fc.integer({ min: -spread, max: spread })
    }),
    { minLength: count.min, maxLength: count.max }
  ).map((specs) => {
    let createdAt = around - 10_000_000
    return specs.map((spec, i): StoredMessage => {
      createdAt += spec.gap
      return {
        id: `${idPrefix}_${i}_${spec.suffix}`,
        accountId: spec.accountId,
        message: spec.message,
        status: "queued",
        createdAt,
        updatedAt: createdAt,
        attempts: 0,
        availableAt: around + spec.available,
        leaseUntil: 0,
        lastError: null
      }
    })
  })

/** Any stored state, for the round-trip law. */
export const anyMessage: fc.Arbitrary<StoredMessage> = fc.record({
  id: base62(22).map((s) => `msg_${s}`),
  accountId: base62(22).map((s) => `acc_${s}`),
  message: text({ maxLength: 500 }),
  status: fromSchema(Message.MessageStatus),
  createdAt: instant,
  updatedAt: instant,
  attempts: fc.integer({ min: 0, max: 100 }),
  availableAt: instant,
  leaseUntil: fc.oneof(fc.constant(0), instant),
  lastError: fc.option(text({ maxLength: 200 }), { nil: null })
})

export const NOW = 1_800_000_000_000

export const insertAll = (store: Store, ms: ReadonlyArray<StoredMessage>): Effect.Effect<void, Errors.StoreUnavailable> =>
  Effect.forEach(ms, (m) => store.insert(m), { discard: true })

/** The claimed version of `m`; `updatedAt` is the store's business. */
export const claimedAs = (m: StoredMessage, now: number, leaseMillis: number) => ({
  ...m,
  status: "processing",
  attempts: m.attempts + 1,
  leaseUntil: now + leaseMillis,
  updatedAt: expect.any(Number)
})

export const found = (store: Store, id: string): Effect.Effect<StoredMessage, Errors.StoreUnavailable> => Effect.map(store.find(id), Option.getOrThrow)

/** What the laws of this suite share: its parameters and the helpers over its layer. */
export const suiteOf = <E>(name: string, layer: Layer.Layer<MessageStore.MessageStore, E>, options?: LawSuiteOptions) => {
  const withStore = <A, E2>(f: (store: Store) => Effect.Effect<A, E2>) =>
    Effect.provide(Effect.flatMap(MessageStore.MessageStore, f), layer)
  const runs = numRuns(options)
  return { name, layer, options, withStore, runs }
}

export type Suite<E> = ReturnType<typeof suiteOf<E>>
