/**
 * The commands on creates sent with an `Idempotency-Key`: sequential retries (bare and quoted
 * forms, spread over the instances), concurrent retries at once over every `--base-url`, and the
 * key reused with another body or on the other create. Each keyed pet is named after its key, so
 * the inventory can check that every key names exactly one pet.
 */
import { randomUUID } from "node:crypto"
import { errorCode } from "./AnswerRules.js"
import { Base, describePick, JSON_HEADERS, type KeyPick, pickKey } from "./CommandBase.js"
import type { HttpExchange } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import type { KeyModel, PetRecord } from "./ModelRecords.js"
import { parallelBurst } from "./ParallelBurst.js"
import type { Session } from "./Session.js"
import { expectStatus, fail } from "./Violation.js"

interface KeyedPet {
  readonly categoryId: number
  readonly status?: string | undefined
}

/** A new key and the pet body it is sent with (named after the key). */
const newKeyed = (pet: KeyedPet) => {
  const idempotencyKey = `conformance-${randomUUID()}`
  const body = { name: `keyed ${idempotencyKey}`, categoryId: pet.categoryId, ...(pet.status === undefined ? {} : { status: pet.status }) }
  return { idempotencyKey, body }
}

const REPLAYED = "idempotent-replayed"

/** A keyed create's start: the picked key (none: nothing to do), a new Idempotency-Key, its pet, noted in the model. */
const begin = (model: Model, session: Session, pick: KeyPick, pet: KeyedPet) => {
  const key = pickKey(model, pick)
  if (key === undefined) return undefined
  const keyed = newKeyed(pet)
  model.keyedPets.set(keyed.body.name, undefined)
  return { ...keyed, key, path: `${session.publicPrefix}/pets` }
}

/** Sends the keyed create once; the exchange when the limits admitted it. */
const sendKeyed = (session: Session, key: KeyModel, label: string, path: string, idempotencyKey: string, body: unknown) =>
  session.keyed(label, key, {
    method: "POST",
    path,
    headers: { ...JSON_HEADERS, "Idempotency-Key": idempotencyKey },
    body: JSON.stringify(body)
  })

/** Checks a 201 of a keyed pet create and records its pet (first answer or replay alike). */
const acknowledge = (model: Model, x: HttpExchange, what: string, body: { name: string; categoryId: number; status?: string }): PetRecord => {
  const pet = JSON.parse(x.response.text) as PetRecord
  const status = body.status ?? "available"
  if (pet.name !== body.name || pet.categoryId !== body.categoryId || pet.status !== status) {
    fail(`${what}: created ${JSON.stringify(pet)}, expected ${JSON.stringify({ ...body, status })}`)
  }
  const location = x.response.headers["location"]
  if (location === undefined || !location.endsWith(`/pets/${pet.id}`)) fail(`${what}: Location ${JSON.stringify(location)} does not point at /pets/${pet.id}`)
  const known = model.keyedPets.get(pet.name)
  if (known !== undefined && known !== pet.id) fail(`${what}: pet ${pet.id}, but an earlier answer with this key gave pet ${known}`)
  model.keyedPets.set(pet.name, pet.id)
  model.observePet(pet, what)
  model.acknowledged.set(pet.id, pet)
  return pet
}

/** Same key and body, sent `retries` more times in turn over the instances: each is the first answer again. */
export class KeyedRetries extends Base {
  constructor(readonly pick: KeyPick, readonly pet: KeyedPet, readonly retries: number) {
    super()
  }
  toString() {
    return `keyedRetries(${describePick(this.pick)}, ${JSON.stringify(this.pet)}, ${this.retries} retries)`
  }
  async run(model: Model, session: Session) {
    const start = begin(model, session, this.pick, this.pet)
    if (start === undefined) return
    const { body, idempotencyKey, key, path } = start
    let first: HttpExchange | undefined
    for (let attempt = 0; attempt <= this.retries; attempt++) {
      // Every other retry sends the draft's quoted form: the same key.
      const sent = attempt % 2 === 1 ? `"${idempotencyKey}"` : idempotencyKey
      const x = await sendKeyed(session, key, `keyed create, attempt ${attempt + 1}`, path, sent, body)
      if (x === undefined) continue
      const what = `keyed create (attempt ${attempt + 1}, Idempotency-Key ${sent}): POST ${path} → ${x.response.status}`
      expectStatus(what, x.response.status, [201], x.response.text)
      acknowledge(model, x, what, body)
      if (first === undefined) {
        if (x.response.headers[REPLAYED] !== undefined && attempt === 0) fail(`${what}: the first request with a new key says Idempotent-Replayed`)
        first = x
        continue
      }
      if (x.response.headers[REPLAYED] !== "true") fail(`${what}: a retry with the same key and body lacks Idempotent-Replayed: true`)
      if (x.response.text !== first.response.text) fail(`${what}: the retry answered ${x.response.text}, the first ${first.response.text}`)
      if (x.response.headers["location"] !== first.response.headers["location"]) fail(`${what}: the retry's Location differs from the first's`)
    }
  }
}

/** `count` requests with one key sent at once over the instances: one pet; each answer its 201 or a 409. */
export class ConcurrentKeyedCreates extends Base {
  constructor(readonly pick: KeyPick, readonly pet: KeyedPet, readonly count: number) {
    super()
  }
  toString() {
    return `concurrentKeyedCreates(${describePick(this.pick)}, ${JSON.stringify(this.pet)}, ${this.count} at once)`
  }
  async run(model: Model, session: Session) {
    const start = begin(model, session, this.pick, this.pet)
    if (start === undefined) return
    const { body, idempotencyKey, key, path } = start
    const admitted = await parallelBurst(model, session, key, this.count, {
      method: "POST",
      path,
      headers: { ...JSON_HEADERS, "Idempotency-Key": idempotencyKey },
      body: JSON.stringify(body),
      admitted: [201, 409]
    })
    const what = `${this.count} keyed creates at once (Idempotency-Key ${idempotencyKey}): POST ${path}`
    const created = admitted.filter((x) => x.response.status === 201)
    for (const x of admitted.filter((x) => x.response.status === 409)) {
      if (errorCode(x) !== "idempotency_key_in_use") fail(`${what}: a 409 with code ${errorCode(x)}, expected idempotency_key_in_use`)
      const ra = Number(x.response.headers["retry-after"])
      if (!Number.isInteger(ra) || ra < 1) fail(`${what}: a 409 without Retry-After of at least 1 s`)
    }
    for (const x of created) {
      acknowledge(model, x, what, body)
      if (x.response.text !== created[0]!.response.text) fail(`${what}: two 201s with different bodies: ${created[0]!.response.text} and ${x.response.text}`)
    }
    const firsts = created.filter((x) => x.response.headers[REPLAYED] === undefined)
    if (firsts.length > 1) fail(`${what}: ${firsts.length} answers carried the create out (no Idempotent-Replayed): exactly one may`)
    if (created.length === 0 && admitted.length > 0) {
      // Only 409s: the one that held the key was refused by the limits; the settled key replays.
      const x = await sendKeyed(session, key, "keyed create after the burst", path, idempotencyKey, body)
      if (x !== undefined) {
        expectStatus(`${what}, then once more → ${x.response.status}`, x.response.status, [201], x.response.text)
        acknowledge(model, x, what, body)
      }
    }
  }
}

/** The key of a create, reused with another body and on messages: 422 idempotency_key_reused, nothing created. */
export class KeyedMismatch extends Base {
  constructor(readonly pick: KeyPick, readonly pet: KeyedPet) {
    super()
  }
  toString() {
    return `keyedMismatch(${describePick(this.pick)}, ${JSON.stringify(this.pet)})`
  }
  async run(model: Model, session: Session) {
    const start = begin(model, session, this.pick, this.pet)
    if (start === undefined) return
    const { body, idempotencyKey, key, path } = start
    const x = await sendKeyed(session, key, "keyed create", path, idempotencyKey, body)
    if (x === undefined) return
    expectStatus(`keyed create: POST ${path} → ${x.response.status}`, x.response.status, [201], x.response.text)
    acknowledge(model, x, `keyed create: POST ${path}`, body)
    const others: ReadonlyArray<readonly [string, unknown]> = [
      [path, { ...body, categoryId: body.categoryId === 1 ? 2 : body.categoryId - 1 }],
      [`${session.messagesPrefix}/messages`, { message: body.name }]
    ]
    for (const [where, other] of others) {
      const y = await sendKeyed(session, key, "the key reused with another request", where, idempotencyKey, other)
      if (y === undefined) continue
      const what = `the Idempotency-Key of a pet create, sent with ${JSON.stringify(other)}: POST ${where} → ${y.response.status}`
      expectStatus(what, y.response.status, [422], y.response.text)
      if (errorCode(y) !== "idempotency_key_reused") fail(`${what}: code ${errorCode(y)}, expected idempotency_key_reused`)
    }
  }
}
