/**
 * The commands of the model-based conformance run (fast-check `AsyncCommand`s): each sends one or a
 * few requests, checks every response against the OpenAPI document and the model, and updates the
 * model. Commands pick keys, pets, listings and messages by index at run time, so any sequence is
 * runnable and shrinking can drop any command.
 *
 * @since 1.0.0
 */
import { FastCheck as fc } from "effect"
import * as Invalid from "../arbitraries/Invalid.js"
import * as Valid from "../arbitraries/Valid.js"
import { codesForDefect, expectCode, expectUtcTimestamp } from "./AnswerRules.js"
import { now } from "./HttpExchange.js"
import { expectStatus, fail, type KeyModel, type Model, type PetRecord } from "./Model.js"
import { createsWhilePaging, type CreatesWhilePagingPlan, createsWhilePagingPlan } from "./CreatesWhilePaging.js"
import { checkPage } from "./PageCheck.js"
import { parallelBurst, parallelBurstSize } from "./ParallelBurst.js"
import { readMessageBack, readPetBack } from "./ReadYourWrites.js"
import type { Session } from "./Session.js"

type Command = fc.AsyncCommand<Model, Session, boolean>

const JSON_HEADERS = { "Content-Type": "application/json" }
const SUNSET = "Thu, 05 Dec 2030 00:00:00 GMT"
const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** A key chosen at run time: among the usable ones, or (sometimes) among all, ended ones included. */
interface KeyPick {
  readonly index: number
  readonly anyKey: boolean
}
const keyPickArb: fc.Arbitrary<KeyPick> = fc.record({ index: fc.nat(), anyKey: fc.constantFrom(false, false, false, true) })

const pickKey = (model: Model, pick: KeyPick): KeyModel | undefined => {
  const keys = pick.anyKey ? model.accounts.flatMap((a) => a.keys) : model.liveKeys(now())
  return keys.length === 0 ? undefined : keys[pick.index % keys.length]
}

const describePick = (pick: KeyPick) => `${pick.anyKey ? "any" : "live"}key#${pick.index % 97}`

const hasKeys = (model: Model) => model.accounts.some((a) => a.keys.length > 0)

abstract class Base implements Command {
  abstract run(model: Model, session: Session): Promise<void>
  abstract toString(): string
  check(model: Readonly<Model>): boolean {
    return hasKeys(model as Model)
  }
}

// ---------------------------------------------------------------------------------------------
// Pets

class CreatePet extends Base {
  constructor(
    readonly pick: KeyPick,
    readonly pet: { name: string; categoryId: number; status?: string },
    readonly scheme: string,
    readonly extra: { readonly id?: number; readonly note?: string }
  ) {
    super()
  }
  toString() {
    const body = { ...this.extra, ...this.pet }
    return `createPet(${describePick(this.pick)}, ${JSON.stringify(body)}${this.scheme === "Bearer" ? "" : `, scheme ${this.scheme}`})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.publicPrefix}/pets`
    // Unknown fields, `id` among them, are ignored.
    const body = JSON.stringify({ ...this.extra, ...this.pet })
    const x = await session.keyed("create a pet", key, { method: "POST", path, headers: JSON_HEADERS, body }, this.scheme)
    if (x === undefined) return
    const what = `create a pet: POST ${path} → ${x.response.status}`
    expectStatus(what, x.response.status, [201], x.response.text)
    const pet = session.json(x, what) as PetRecord
    const expected = { name: this.pet.name, categoryId: this.pet.categoryId, status: this.pet.status ?? "available" }
    if (pet.name !== expected.name || pet.categoryId !== expected.categoryId || pet.status !== expected.status) {
      fail(`${what}: created ${JSON.stringify(pet)}, expected ${JSON.stringify(expected)} (status defaults to available)`)
    }
    if (!(pet.id > model.maxPetId)) {
      fail(`${what}: new pet id ${pet.id} is not above every id seen before (${model.maxPetId}); pets created while a client pages would be skipped`)
    }
    const location = x.response.headers["location"]
    if (location === undefined || !location.endsWith(`/pets/${pet.id}`)) {
      fail(`${what}: Location ${JSON.stringify(location)} does not point at /pets/${pet.id}`)
    }
    model.observePet(pet, what)
    model.acknowledged.set(pet.id, pet)
    await readPetBack(model, session, pet)
  }
}

class CreatePetInvalid extends Base {
  constructor(readonly pick: KeyPick, readonly invalid: Invalid.InvalidBody) {
    super()
  }
  toString() {
    return `createPetInvalid(${describePick(this.pick)}, ${this.invalid.defect}: ${this.invalid.description})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.publicPrefix}/pets`
    const headers: Record<string, string> = this.invalid.contentType === null ? {} : { "Content-Type": this.invalid.contentType }
    const x = await session.keyed(`create a pet with ${this.invalid.defect}`, key, { method: "POST", path, headers, body: this.invalid.body })
    if (x === undefined) return
    const what = `POST ${path} with ${this.invalid.defect} (${this.invalid.description}) → ${x.response.status}`
    expectStatus(what, x.response.status, [this.invalid.expectedStatus], x.response.text)
    expectCode(what, x, codesForDefect(this.invalid.defect))
  }
}

class GetPet extends Base {
  constructor(readonly pick: KeyPick, readonly target: "known" | "absent" | "largest", readonly index: number) {
    super()
  }
  toString() {
    return `getPet(${describePick(this.pick)}, ${this.target}#${this.index % 97})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const known = [...model.pets.values()]
    const pet = this.target === "known" && known.length > 0 ? known[this.index % known.length] : undefined
    const id = pet !== undefined ? pet.id : this.target === "largest" ? Number.MAX_SAFE_INTEGER : model.maxPetId + 1_000_000_000
    const path = `${session.publicPrefix}/pets/${id}`
    const x = await session.keyed("get a pet", key, { method: "GET", path })
    if (x === undefined) return
    const what = `get a pet: GET ${path} → ${x.response.status}`
    if (x.response.headers["sunset"] !== SUNSET) fail(`${what}: Sunset ${JSON.stringify(x.response.headers["sunset"])}, expected ${SUNSET}`)
    if (!/^@\d+$/.test(x.response.headers["deprecation"] ?? "")) {
      fail(`${what}: Deprecation ${JSON.stringify(x.response.headers["deprecation"])} is not an RFC 9745 date (@epoch-seconds)`)
    }
    if (!/rel="?successor-version"?/.test(x.response.headers["link"] ?? "")) fail(`${what}: no Link to the successor (rel="successor-version")`)
    if (pet === undefined) {
      expectStatus(what, x.response.status, [404], x.response.text)
      return
    }
    expectStatus(what, x.response.status, [200], x.response.text)
    const got = session.json(x, what) as PetRecord
    if (got.id !== pet.id) fail(`${what}: asked for pet ${pet.id}, got ${got.id}`)
    model.observePet(got, what)
  }
}

class GetPetInvalid extends Base {
  constructor(readonly pick: KeyPick, readonly invalid: { readonly defect: string; readonly segment: string }) {
    super()
  }
  toString() {
    return `getPetInvalid(${describePick(this.pick)}, ${this.invalid.defect}: ${this.invalid.segment})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.publicPrefix}/pets/${this.invalid.segment}`
    const x = await session.keyed(`get a pet with ${this.invalid.defect}`, key, { method: "GET", path })
    if (x === undefined) return
    const what = `GET ${path} (${this.invalid.defect}) → ${x.response.status}`
    expectStatus(what, x.response.status, [400], x.response.text)
    expectCode(what, x, codesForDefect(this.invalid.defect))
  }
}

class ListPets extends Base {
  constructor(
    readonly pick: KeyPick,
    readonly query: { readonly limit?: number; readonly status?: string },
    readonly unknownParameter = false
  ) {
    super()
  }
  toString() {
    return `listPets(${describePick(this.pick)}, ${JSON.stringify(this.query)}${this.unknownParameter ? ", with an unknown parameter" : ""})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const params = new URLSearchParams()
    if (this.query.limit !== undefined) params.set("limit", String(this.query.limit))
    if (this.query.status !== undefined) params.set("status", this.query.status)
    // Unknown query parameters are ignored.
    if (this.unknownParameter) params.set("utm_source", "conformance")
    const qs = params.toString()
    const path = `${session.publicPrefix}/pets${qs === "" ? "" : `?${qs}`}`
    const x = await session.keyed("list pets", key, { method: "GET", path })
    if (x === undefined) return
    const chain = { limit: this.query.limit ?? 20, status: this.query.status, afterId: 0 }
    const page = checkPage(model, session, chain, x, `list pets: GET ${path} → ${x.response.status}`)
    model.chains.push({ ...chain, key, afterId: page.lastId, next: page.next, pages: 1 })
  }
}

class NextPage extends Base {
  constructor(readonly index: number) {
    super()
  }
  override check(model: Readonly<Model>) {
    return model.chains.some((c) => c.next !== undefined)
  }
  toString() {
    return `nextPage(listing#${this.index % 97})`
  }
  async run(model: Model, session: Session) {
    const open = model.chains.filter((c) => c.next !== undefined)
    if (open.length === 0) return
    const chain = open[this.index % open.length]!
    const path = chain.next!
    const x = await session.keyed(`next page of a listing (page ${chain.pages + 1})`, chain.key, { method: "GET", path })
    if (x === undefined) return
    const page = checkPage(model, session, chain, x, `next page: GET ${path} → ${x.response.status}`)
    chain.afterId = page.lastId
    chain.next = page.next
    chain.pages++
  }
}

class ListInvalid extends Base {
  constructor(readonly pick: KeyPick, readonly invalid: Invalid.InvalidQuery) {
    super()
  }
  toString() {
    return `listPetsInvalid(${describePick(this.pick)}, ${this.invalid.defect}: ${this.invalid.description})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.publicPrefix}/pets?${this.invalid.query}`
    const x = await session.keyed(`list pets with ${this.invalid.defect}`, key, { method: "GET", path })
    if (x === undefined) return
    const what = `GET ${path} (${this.invalid.defect}) → ${x.response.status}`
    expectStatus(what, x.response.status, [400], x.response.text)
    expectCode(what, x, codesForDefect(this.invalid.defect))
  }
}

class ForgeCursor extends Base {
  constructor(readonly index: number, readonly forgery: { readonly description: string; readonly forge: (c: string) => string } | "other_filter") {
    super()
  }
  override check(model: Readonly<Model>) {
    return model.chains.some((c) => c.next !== undefined)
  }
  toString() {
    return `forgedCursor(listing#${this.index % 97}, ${this.forgery === "other_filter" ? "the cursor with another status filter" : this.forgery.description})`
  }
  async run(model: Model, session: Session) {
    const open = model.chains.filter((c) => c.next !== undefined)
    if (open.length === 0) return
    const chain = open[this.index % open.length]!
    const url = new URL(chain.next!, "http://x")
    const cursor = url.searchParams.get("cursor") ?? ""
    if (this.forgery === "other_filter") {
      const other = ["available", "pending", "sold", undefined].find((s) => s !== chain.status)
      if (other === undefined) url.searchParams.delete("status")
      else url.searchParams.set("status", other)
    } else {
      const forged = this.forgery.forge(cursor)
      if (forged === cursor) return
      url.searchParams.set("cursor", forged)
    }
    const path = url.pathname + url.search
    const x = await session.keyed("list pets with a forged cursor", chain.key, { method: "GET", path })
    if (x === undefined) return
    const what = `GET ${path} (forged cursor) → ${x.response.status}`
    expectStatus(what, x.response.status, [400], x.response.text)
    expectCode(what, x, codesForDefect("forged_cursor"))
  }
}

// ---------------------------------------------------------------------------------------------
// Messages

class SubmitMessage extends Base {
  constructor(readonly pick: KeyPick, readonly text: string) {
    super()
  }
  toString() {
    return `submitMessage(${describePick(this.pick)}, ${JSON.stringify(this.text)})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.messagesPrefix}/messages`
    const x = await session.keyed("submit a message", key, { method: "POST", path, headers: JSON_HEADERS, body: JSON.stringify({ message: this.text }) })
    if (x === undefined) return
    const what = `submit a message: POST ${path} → ${x.response.status}`
    expectStatus(what, x.response.status, [202], x.response.text)
    const m = session.json(x, what) as { id: string; message: string; status: string; createdAt: string }
    if (m.message !== this.text) fail(`${what}: the message is not echoed back: ${JSON.stringify(m.message)}`)
    if (m.status !== "queued") fail(`${what}: status ${m.status}, expected queued`)
    expectUtcTimestamp(what, "createdAt", m.createdAt)
    const created = Date.parse(m.createdAt)
    if (Math.abs(created - x.wallSentAt) > model.expect.clockSkewSeconds * 1000 + 1000) {
      fail(`${what}: createdAt ${m.createdAt} is not the time of the request in UTC`)
    }
    const location = x.response.headers["location"]
    if (location === undefined || !location.endsWith(`/messages/${m.id}`)) fail(`${what}: Location ${location} does not point at the message`)
    session.variables.set(m.id, `MESSAGE_${model.messages.length + 1}`)
    const message = { id: m.id, text: this.text, account: key.account, lastStatus: "queued" }
    model.messages.push(message)
    await readMessageBack(model, session, message)
  }
}

class SubmitMessageInvalid extends Base {
  constructor(readonly pick: KeyPick, readonly invalid: Invalid.InvalidBody) {
    super()
  }
  toString() {
    return `submitMessageInvalid(${describePick(this.pick)}, ${this.invalid.defect}: ${this.invalid.description})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    const path = `${session.messagesPrefix}/messages`
    const headers: Record<string, string> = this.invalid.contentType === null ? {} : { "Content-Type": this.invalid.contentType }
    const x = await session.keyed(`submit a message with ${this.invalid.defect}`, key, { method: "POST", path, headers, body: this.invalid.body })
    if (x === undefined) return
    const what = `POST ${path} with ${this.invalid.defect} (${this.invalid.description}) → ${x.response.status}`
    expectStatus(what, x.response.status, [this.invalid.expectedStatus], x.response.text)
    expectCode(what, x, codesForDefect(this.invalid.defect))
  }
}

const RANK: Record<string, number> = { queued: 0, processing: 1, delivered: 2, failed: 2 }

/** Reads one message: with its own account's key it is there, with another account's it is not. */
const readMessage = async (session: Session, message: Model["messages"][number], key: KeyModel, label: string) => {
  const path = `${session.messagesPrefix}/messages/${message.id}`
  const x = await session.keyed(label, key, { method: "GET", path })
  if (x === undefined) return undefined
  const what = `${label}: GET ${path} → ${x.response.status}`
  if (key.account !== message.account) {
    expectStatus(`${what} (another account's message)`, x.response.status, [404], x.response.text)
    return undefined
  }
  expectStatus(what, x.response.status, [200], x.response.text)
  const m = session.json(x, what) as { id: string; message: string; status: string; createdAt: unknown }
  if (m.id !== message.id || m.message !== message.text) fail(`${what}: got ${x.response.text.slice(0, 200)}`)
  expectUtcTimestamp(what, "createdAt", m.createdAt)
  const before = message.lastStatus
  if (!(m.status in RANK)) fail(`${what}: unknown status ${m.status}`)
  if (RANK[before] === 2 && m.status !== before) fail(`${what}: status went from ${before} back to ${m.status}`)
  message.lastStatus = m.status
  return m.status
}

class ReadMessage extends Base {
  constructor(readonly index: number, readonly pick: KeyPick, readonly own: boolean) {
    super()
  }
  override check(model: Readonly<Model>) {
    return model.messages.length > 0
  }
  toString() {
    return `readMessage(message#${this.index % 97}, ${this.own ? "own account" : describePick(this.pick)})`
  }
  async run(model: Model, session: Session) {
    if (model.messages.length === 0) return
    const message = model.messages[this.index % model.messages.length]!
    const key = this.own ? model.liveKeys(now()).find((k) => k.account === message.account) : pickKey(model, this.pick)
    if (key === undefined) return
    await readMessage(session, message, key, "read a message")
  }
}

class AwaitDelivery extends Base {
  constructor(readonly index: number) {
    super()
  }
  override check(model: Readonly<Model>) {
    return model.messages.length > 0
  }
  toString() {
    return `awaitDelivery(message#${this.index % 97})`
  }
  async run(model: Model, session: Session) {
    if (model.messages.length === 0) return
    const message = model.messages[this.index % model.messages.length]!
    const started = now()
    let delay = 20
    while (true) {
      const key = model.liveKeys(now()).find((k) => k.account === message.account && !model.toldToWait(k, now()))
      if (key === undefined) return
      const status = await readMessage(session, message, key, "poll a message until it is delivered")
      if (status === undefined) return
      if (status === "delivered") return
      if (status === "failed") fail(`message ${message.id} failed; the default processor delivers every message`)
      if (now() - started > model.expect.messageDeadlineMs) {
        fail(`message ${message.id} is still ${status} ${model.expect.messageDeadlineMs} ms after it was accepted (202 queued → eventually delivered)`)
      }
      await sleep(delay)
      delay = Math.min(delay * 2, 1_000)
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Authentication, routing and limits

const AUTH_PROBES: ReadonlyArray<(prefix: string) => { method: string; path: string; body?: string }> = [
  (p) => ({ method: "GET", path: `${p}/pets` }),
  (p) => ({ method: "POST", path: `${p}/pets`, body: JSON.stringify({ name: "Rex", categoryId: 1 }) }),
  (p) => ({ method: "GET", path: `${p}/pets/1` }),
  (p) => ({ method: "GET", path: `${p}/no-such-route` }),
  (p) => ({ method: "DELETE", path: `${p}/pets` }),
  (p) => ({ method: "POST", path: `${p}/pets`, body: "{" })
]

class BadAuth implements Command {
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

class RevokedKeyRequest extends Base {
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

class WrongMethod extends Base {
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

class UnknownRoute extends Base {
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
class Burst extends Base {
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
class ParallelBurstCommand extends Base {
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

/** Pets created with one key while the checker's key pages through the listing; see `CreatesWhilePaging.ts`. */
class CreatesWhilePagingCommand extends Base {
  constructor(readonly pick: KeyPick, readonly plan: CreatesWhilePagingPlan) {
    super()
  }
  toString() {
    return `createsWhilePaging(${describePick(this.pick)}, limit ${this.plan.limit}, ${this.plan.pets.length} creates)`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined) return
    await createsWhilePaging(model, session, key, this.plan)
  }
}

/** A client that waits Retry-After and retries succeeds (absent other traffic). */
class HonourRetryAfter extends Base {
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

// ---------------------------------------------------------------------------------------------
// Keys through the admin API

class IssueKey implements Command {
  constructor(readonly index: number) {}
  check(model: Readonly<Model>) {
    return model.accounts.some((a) => a.id !== undefined)
  }
  toString() {
    return `issueKey(account#${this.index % 97})`
  }
  run(_model: Model, session: Session) {
    return session.issueKey(this.index)
  }
}

class RotateKey extends Base {
  constructor(readonly pick: KeyPick, readonly graceSeconds: number) {
    super()
  }
  toString() {
    return `rotateKey(${describePick(this.pick)}, grace ${this.graceSeconds} s)`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined || key.keyId === undefined) return
    await session.rotateKey(key, this.graceSeconds)
  }
}

class RevokeKey extends Base {
  constructor(readonly pick: KeyPick) {
    super()
  }
  toString() {
    return `revokeKey(${describePick(this.pick)})`
  }
  async run(model: Model, session: Session) {
    const key = pickKey(model, this.pick)
    if (key === undefined || key.keyId === undefined) return
    await session.revokeKey(key)
  }
}

class ListKeys implements Command {
  constructor(readonly index: number) {}
  check(model: Readonly<Model>) {
    return model.accounts.some((a) => a.id !== undefined)
  }
  toString() {
    return `listKeys(account#${this.index % 97})`
  }
  run(_model: Model, session: Session) {
    return session.listKeys(this.index)
  }
}

/** Fields a NewPet body may carry that the service ignores (`id` whatever its value, unknown ones). */
const extraPetFields = fc.record(
  { id: fc.oneof(fc.constantFrom(1, 0, -1, 2 ** 53), fc.nat()), note: fc.string({ maxLength: 8 }) },
  { requiredKeys: [] }
)

/** The command generators; admin commands only when the run has an admin token. @category arbitraries */
export const commandArbitraries = (options: { readonly admin: boolean }): Array<fc.Arbitrary<Command>> => {
  const k = keyPickArb
  const publicCommands: Array<fc.Arbitrary<Command>> = [
    fc.tuple(k, Valid.newPet, Valid.bearerScheme).map(([p, pet, s]) => new CreatePet(p, pet, s, {})),
    fc.tuple(k, Valid.newPet, Valid.bearerScheme, extraPetFields).map(([p, pet, s, e]) => new CreatePet(p, pet, s, e)),
    fc.tuple(k, Invalid.invalidNewPet).map(([p, i]) => new CreatePetInvalid(p, i)),
    fc.tuple(k, fc.constantFrom("known", "known", "absent", "largest") as fc.Arbitrary<"known" | "absent" | "largest">, fc.nat()).map(
      ([p, t, i]) => new GetPet(p, t, i)
    ),
    fc.tuple(k, Invalid.invalidPetId).map(([p, i]) => new GetPetInvalid(p, i)),
    fc.tuple(k, fc.record({ limit: fc.integer({ min: 1, max: 4 }), status: Valid.petStatus }, { requiredKeys: ["limit"] })).map(
      ([p, q]) => new ListPets(p, q)
    ),
    fc.tuple(k, Valid.listQuery, fc.boolean()).map(([p, q, u]) => new ListPets(p, q, u)),
    fc.nat().map((i) => new NextPage(i)),
    fc.nat().map((i) => new NextPage(i)),
    fc.tuple(k, Invalid.invalidListQuery).map(([p, q]) => new ListInvalid(p, q)),
    fc.tuple(fc.nat(), fc.oneof(Invalid.forgeCursor, fc.constant("other_filter" as const))).map(([i, f]) => new ForgeCursor(i, f)),
    fc.tuple(k, Valid.newMessage).map(([p, m]) => new SubmitMessage(p, m.message)),
    fc.tuple(k, Invalid.invalidNewMessage).map(([p, i]) => new SubmitMessageInvalid(p, i)),
    fc.tuple(fc.nat(), k, fc.boolean()).map(([i, p, own]) => new ReadMessage(i, p, own)),
    fc.nat().map((i) => new AwaitDelivery(i)),
    fc.tuple(Invalid.badAuthorization, fc.nat(), fc.option(fc.ipV4(), { nil: undefined })).map(([a, i, ip]) => new BadAuth(a, i, ip)),
    fc.tuple(k, fc.nat()).map(([p, i]) => new WrongMethod(p, i)),
    fc.tuple(k, fc.constantFrom("/store/orders", "/pet", "/pets/1/owner", "/animals", "/messages/x/y", "/PETS", "/Pets", "/pets/")).map(([p, path]) => new UnknownRoute(p, path)),
    fc.tuple(k, fc.integer({ min: 1, max: 8 })).map(([p, n]) => new Burst(p, n, false, 0, 0)),
    fc.tuple(k, fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 13 })).map(([p, g, e]) => new Burst(p, 0, true, g, e)),
    k.map((p) => new HonourRetryAfter(p)),
    fc.tuple(k, parallelBurstSize).map(([p, n]) => new ParallelBurstCommand(p, n)),
    fc.tuple(k, createsWhilePagingPlan).map(([p, plan]) => new CreatesWhilePagingCommand(p, plan))
  ]
  if (!options.admin) return publicCommands
  return [
    ...publicCommands,
    fc.nat().map((i) => new IssueKey(i)),
    fc.tuple(k, fc.constantFrom(0, 0, 3_600)).map(([p, g]) => new RotateKey(p, g)),
    k.map((p) => new RevokeKey(p)),
    fc.nat().map((i) => new ListKeys(i)),
    fc.nat().map((i) => new RevokedKeyRequest(i))
  ]
}
