/**
 * The commands on authentication, routing and limits: bad `Authorization` headers, ended keys,
 * wrong methods, unknown routes, bursts (one after another and at once), exhausting a bucket and
 * sending while told to wait, and honouring `Retry-After`.
 */
import { type Command, Base, describePick, type KeyPick, pickKey, sleep } from "./CommandBase.js"
import { now } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import { parallelBurst } from "./ParallelBurst.js"
import type { Session } from "./Session.js"
import { expectStatus, fail } from "./Violation.js"

const AUTH_PROBES: ReadonlyArray<(prefix: string) => { method: string; path: string; body?: string }> = [
  (p) => ({ method: "GET", path: `${p}/pets` }),
  (p) => ({ method: "POST", path: `${p}/pets`, body: JSON.stringify({ name: "Rex", categoryId: 1 }) }),
  (p) => ({ method: "GET", path: `${p}/pets/1` }),
  (p) => ({ method: "GET", path: `${p}/no-such-route` }),
  (p) => ({ method: "DELETE", path: `${p}/pets` }),
  (p) => ({ method: "POST", path: `${p}/pets`, body: "{" })
]

export class BadAuth implements Command {
  constructor(
    readonly auth: { readonly description: string; readonly header: string | null },
    readonly probe: number,
    /** A spoofed client address: it must not move the request to another address's bucket. */
    readonly forwardedFor: string | undefined
  ) {}
  check(model: Readonly<Model>) {
    void model
    return true
  }
  toString() {
    return `badAuthorization(${this.auth.description}, probe#${this.probe % AUTH_PROBES.length}${
      this.forwardedFor === undefined ? "" : `, X-Forwarded-For ${this.forwardedFor}`
    })`
  }
  async run(model: Model, session: Session) {
    // Never trip the per-address limit by accident: keep a margin of failed-authentication tokens.
    const bucket = model.addressBucket
    if (bucket.calibrated && bucket.lower(now()) < 10) return
    if (!bucket.calibrated && model.failedAuthSent > 0) return
    const probe = AUTH_PROBES[this.probe % AUTH_PROBES.length]!(session.publicPrefix)
    const headers: Record<string, string> = {}
    if (this.auth.header !== null) headers["Authorization"] = this.auth.header
    if (probe.body !== undefined) headers["Content-Type"] = "application/json"
    if (this.forwardedFor !== undefined) headers["X-Forwarded-For"] = this.forwardedFor
    const x = await session.send(`a request with ${this.auth.description}`, { ...probe, headers })
    model.failedAuth(x, `${this.auth.description}: ${probe.method} ${probe.path} → ${x.response.status}`)
  }
}

export class RevokedKeyRequest extends Base {
  constructor(readonly index: number) {
    super()
  }
  override check(model: Readonly<Model>) {
    return model.accounts.some((a) => a.keys.some((k) => k.endsAt !== undefined))
  }
  toString() {
    return `endedKey(#${this.index % 97})`
  }
  async run(model: Model, session: Session) {
    const ended = model.accounts.flatMap((a) => a.keys).filter((k) => k.endsAt !== undefined && now() > k.endsAt.hi)
    if (ended.length === 0) return
    if (model.addressBucket.calibrated && model.addressBucket.lower(now()) < 10) return
    const key = ended[this.index % ended.length]!
    await session.keyed("a request with a revoked or expired key", key, { method: "GET", path: `${session.publicPrefix}/pets?limit=1` })
  }
}

const WRONG_METHODS: ReadonlyArray<readonly [string, (p: string, m: string) => string]> = [
  ["PUT", (p) => `${p}/pets`],
  ["DELETE", (p) => `${p}/pets`],
  ["PATCH", (p) => `${p}/pets`],
  ["POST", (p) => `${p}/pets/1`],
  ["DELETE", (p) => `${p}/pets/1`],
  ["PUT", (p) => `${p}/pets/1`],
  ["GET", (_p, m) => `${m}/messages`],
  ["DELETE", (_p, m) => `${m}/messages`]
]

export class WrongMethod extends Base {
  constructor(readonly pick: KeyPick, readonly index: number) {
    super()
  }
  toString() {
    const [method, path] = WRONG_METHODS[this.index % WRONG_METHODS.length]!
    return `wrongMethod(${describePick(this.pick)}, ${method} ${path("/v1", "/v1")})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const [method, toPath] = WRONG_METHODS[this.index % WRONG_METHODS.length]!
    const path = toPath(session.publicPrefix, session.messagesPrefix)
    const x = await session.keyed("a method the route does not have", key, { method, path })
    if (x === undefined) return
    const what = `${method} ${path} → ${x.response.status}`
    const route = session.checker.match(method, path)
    if (route._tag !== "MethodNotAllowed") return
    expectStatus(what, x.response.status, [405], x.response.text)
    const allow = x.response.headers["allow"]
    if (allow === undefined) return fail(`${what}: 405 without an Allow header`)
    const listed = new Set(allow.split(",").map((m) => m.trim().toUpperCase()).filter((m) => m !== ""))
    const documented = new Set(route.allowed)
    const extra = [...listed].filter((m) => !documented.has(m) && m !== "HEAD" && m !== "OPTIONS")
    const missing = [...documented].filter((m) => !listed.has(m))
    if (extra.length > 0 || missing.length > 0) fail(`${what}: Allow "${allow}" differs from the documented methods ${route.allowed.join(", ")}`)
  }
}

export class UnknownRoute extends Base {
  constructor(readonly pick: KeyPick, readonly path: string) {
    super()
  }
  toString() {
    return `unknownRoute(${describePick(this.pick)}, ${this.path})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.publicPrefix}${this.path}`
    const x = await session.keyed("an unknown route", key, { method: "GET", path })
    if (x === undefined) return
    expectStatus(`GET ${path} → ${x.response.status}`, x.response.status, [404], x.response.text)
  }
}

/**
 * Requests in quick succession; `untilRefused` keeps going until the first 429, then `inGrace` more
 * at once (within the grace that follows that refusal), then `early` more once the grace is over.
 */
export class Burst extends Base {
  constructor(
    readonly pick: KeyPick,
    readonly count: number,
    readonly untilRefused: boolean,
    readonly inGrace: number,
    readonly early: number
  ) {
    super()
  }
  toString() {
    return this.untilRefused
      ? `exhaust(${describePick(this.pick)}, then ${this.inGrace} more at once and ${this.early} more after the grace while told to wait)`
      : `burst(${describePick(this.pick)}, ${this.count} requests)`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    if (this.untilRefused && key.account.limits.perMinute > 100) return
    const path = `${session.publicPrefix}/pets?limit=1`
    const max = this.untilRefused ? key.account.limits.perMinute + 5 : this.count
    let refused = false
    for (let i = 0; i < max && !refused; i++) {
      if (model.certainlyBanned(key, now()) || model.authOf(key, now(), now()) !== "valid") return
      const x = await session.keyed(`request ${i + 1} of a burst`, key, { method: "GET", path })
      if (x === undefined) {
        refused = true
      } else {
        expectStatus(`GET ${path} → ${x.response.status}`, x.response.status, [200], x.response.text)
      }
    }
    if (!refused || session.honoursWaits) return
    // At once after the refusal, so within its grace on a quick connection: these do not count toward a ban.
    for (let i = 0; i < this.inGrace; i++) {
      if (model.authOf(key, now(), now()) !== "valid") return
      await session.keyed(`request ${i + 1} at once after the refusal`, key, { method: "GET", path })
    }
    // Keep sending while told to wait, once the grace is certainly over (the model takes a request as
    // decided from `decisionSlackMs` before it was sent): more than the threshold of these bans the key.
    if (this.early > 0) await sleep(Math.max(0, key.graceUntil.hi - now()) + model.expect.decisionSlackMs + 5)
    for (let i = 0; i < this.early; i++) {
      if (model.authOf(key, now(), now()) !== "valid") return
      await session.keyed(`early request ${i + 1} while told to wait`, key, { method: "GET", path })
    }
  }
}


/** Requests sent at once with one key; see `ParallelBurst.ts`. */
export class ParallelBurstCommand extends Base {
  constructor(readonly pick: KeyPick, readonly count: number) {
    super()
  }
  toString() {
    return `parallelBurst(${describePick(this.pick)}, ${this.count} at once)`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    await parallelBurst(model, session, key, this.count)
  }
}


/** A client that waits Retry-After and retries succeeds (absent other traffic). */
export class HonourRetryAfter extends Base {
  constructor(readonly pick: KeyPick) {
    super()
  }
  toString() {
    return `honourRetryAfter(${describePick(this.pick)})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const at = now()
    if (!model.toldToWait(key, at) || model.certainlyBanned(key, at)) return
    const account = key.account
    if (account.dayUsed !== undefined && account.dayUsed >= account.limits.perDay) return
    const wait = key.waitUntil.hi - at + 50
    if (wait > 2_500) return
    await sleep(wait)
    const path = `${session.publicPrefix}/pets?limit=1`
    // The model knows the bucket holds a token again, so a refusal fails in `keyed`.
    await session.keyed("retry after waiting Retry-After", key, { method: "GET", path })
  }
}
