import { describe, expect, it } from "@effect/vitest"
import { Effect, Layer } from "effect"
import { base62, randomId, SecureRandom } from "../src/SecureRandom.js"

const fixed = (bytes: ReadonlyArray<number>) =>
  Layer.succeed(SecureRandom, {
    bytes: (n: number) => Effect.sync(() => Uint8Array.from({ length: n }, (_, i) => bytes[i % bytes.length]!))
  })

describe("SecureRandom", () => {
  it.effect("Live gives the asked number of bytes, different each time", () =>
    Effect.gen(function*() {
      const random = yield* SecureRandom
      const a = yield* random.bytes(32)
      const b = yield* random.bytes(32)
      expect(a.length).toBe(32)
      expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false)
    }).pipe(Effect.provide(SecureRandom.Live)))

  it.effect("seeded is reproducible, and different seeds differ", () =>
    Effect.gen(function*() {
      const draw = (seed: number) => Effect.flatMap(SecureRandom, (r) => r.bytes(16)).pipe(Effect.provide(SecureRandom.seeded(seed)))
      const a = yield* draw(7)
      expect([...(yield* draw(7))]).toEqual([...a])
      expect([...(yield* draw(8))]).not.toEqual([...a])
      expect([...(yield* draw(0))]).toEqual([...(yield* draw(0))])
      expect(a.length).toBe(16)
      expect(new Set(a).size).toBeGreaterThan(4)
    }))

  it.effect("seeded is one stream: two draws of 4 bytes are one draw of 8", () =>
    Effect.gen(function*() {
      const twice = yield* Effect.flatMap(SecureRandom, (r) => Effect.zipWith(r.bytes(4), r.bytes(4), (a, b) => [...a, ...b])).pipe(
        Effect.provide(SecureRandom.seeded(5))
      )
      const once = yield* Effect.flatMap(SecureRandom, (r) => r.bytes(8)).pipe(Effect.provide(SecureRandom.seeded(5)))
      expect(twice).toEqual([...once])
    }))

  it.effect("seeded(0) does not get stuck at zero", () =>
    Effect.map(Effect.flatMap(SecureRandom, (r) => r.bytes(8)), (b) => expect([...b].some((x) => x !== 0)).toBe(true)).pipe(
      Effect.provide(SecureRandom.seeded(0))
    ))

  it.effect("base62 maps bytes below 248 by their value modulo 62", () =>
    Effect.map(base62(6), (s) => expect(s).toBe("0aZz9A")).pipe(Effect.provide(fixed([0, 36, 35, 61, 9, 10]))))

  it.effect("base62 skips bytes of 248 and above, so every character is equally likely", () =>
    Effect.map(base62(3), (s) => expect(s).toBe("111")).pipe(Effect.provide(fixed([248, 255, 1, 250]))))

  it.effect("base62 with only rejected bytes in one draw draws again", () => {
    let calls = 0
    const layer = Layer.succeed(SecureRandom, {
      bytes: (n: number) => Effect.sync(() => new Uint8Array(n).fill(calls++ === 0 ? 255 : 2))
    })
    return Effect.map(base62(4), (s) => {
      expect(s).toBe("2222")
      expect(calls).toBe(2)
    }).pipe(Effect.provide(layer))
  })

  it.effect("randomId is the prefix, an underscore and 22 base62 characters", () =>
    Effect.map(randomId("acc"), (id) => expect(id).toMatch(/^acc_[0-9A-Za-z]{22}$/)).pipe(Effect.provide(SecureRandom.Live)))
})
