/**
 * The commands on messages: submit (valid and invalid), read with its own and another account's
 * key, and poll until delivered.
 */
import * as Invalid from "../arbitraries/Invalid.js"
import { codesForDefect, expectCode, expectUtcTimestamp } from "./AnswerRules.js"
import { Base, describePick, JSON_HEADERS, type KeyPick, pickKey, sleep } from "./CommandBase.js"
import { now } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import type { KeyModel } from "./ModelRecords.js"
import { readMessageBack } from "./ReadYourWrites.js"
import type { Session } from "./Session.js"
import { expectStatus, fail } from "./Violation.js"

export class SubmitMessage extends Base {
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
    if (key.account.id !== undefined) session.webhooks?.ledger.accept({ id: m.id, accountId: key.account.id, text: this.text, createdAt: m.createdAt })
    model.messages.push(message)
    await readMessageBack(model, session, message)
  }
}

export class SubmitMessageInvalid extends Base {
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

export class ReadMessage extends Base {
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

export class AwaitDelivery extends Base {
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
