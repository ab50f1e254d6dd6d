/**
 * The admin API as the checker uses it: creating accounts, and issuing, rotating, revoking and
 * listing keys. Each call is logged on its session (with the shell variables its answer
 * defines), checked, and recorded in the model.
 */
import { expectCode } from "./AnswerRules.js"
import { decisionWindow } from "./Expectations.js"
import type { HttpExchange, HttpRequest } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import type { AccountModel, KeyModel, PlanLimits } from "./ModelRecords.js"
import type { LoggedExchange } from "./SessionLog.js"
import { fail } from "./Violation.js"
import type { WebhookLedger } from "./WebhookLedger.js"
import type { WebhookReceiver } from "./WebhookReceiver.js"

/** What the admin calls use of the session they are made in (`Session` is one). */
export interface AdminSession {
  readonly adminToken: string | undefined
  readonly model: Model
  /** Literal values (keys, ids) and the shell variables that stand for them in printed commands. */
  readonly variables: Map<string, string>
  readonly webhooks: { readonly receiver: WebhookReceiver; readonly ledger: WebhookLedger } | undefined
  readonly log: Array<LoggedExchange>
  send(label: string, request: HttpRequest): Promise<HttpExchange>
  sendUnlogged(request: HttpRequest): Promise<{ readonly exchange: HttpExchange; readonly origin: string }>
  json(x: HttpExchange, what: string): unknown
}

const KEY_FORMAT = /^psk_(live|test)_[0-9A-Za-z]{22,}$/

const checkIssuedKey = (body: unknown, what: string): { key: string; id: string } => {
  const b = body as { key?: unknown; id?: unknown; keyId?: unknown; prefix?: unknown }
  const key = b.key
  const id = typeof b.keyId === "string" ? b.keyId : b.id
  if (typeof key !== "string" || !KEY_FORMAT.test(key)) {
    fail(`${what}: the key ${JSON.stringify(key)} is not psk_live_/psk_test_ followed by at least 128 random bits (22+ base62)`)
  }
  if (typeof id !== "string") fail(`${what}: no key id in ${JSON.stringify(body)}`)
  if (typeof b.prefix === "string" && (!(key as string).startsWith(b.prefix) || b.prefix.length >= (key as string).length - 16)) {
    fail(`${what}: the display prefix ${JSON.stringify(b.prefix)} is not a short prefix of the key`)
  }
  return { key: key as string, id: id as string }
}

/** The admin API calls of one session. @category models */
export class AdminApi {
  private keyCounter = 0

  constructor(private readonly session: AdminSession) {}

  private headers(body: boolean): Record<string, string> {
    return body
      ? { Authorization: `Bearer ${this.session.adminToken}`, "Content-Type": "application/json" }
      : { Authorization: `Bearer ${this.session.adminToken}` }
  }

  private newKeyVariable(account: string): string {
    return `KEY_${account}_${++this.keyCounter}`
  }

  /** `POST /admin/v1/accounts`: an account with its first key; `listed: false` keeps it out of the commands' picks. */
  async createAccount(name: string, body: object, limits: PlanLimits, listed = true): Promise<AccountModel> {
    const keyVariable = this.newKeyVariable(name)
    const request: HttpRequest = {
      method: "POST",
      path: "/admin/v1/accounts",
      headers: this.headers(true),
      body: JSON.stringify(body)
    }
    const { exchange: x, origin } = await this.session.sendUnlogged(request)
    const what = `create account ${name}: POST /admin/v1/accounts → ${x.response.status}`
    if (x.response.status !== 201) fail(`${what}: expected 201, got ${x.response.text.slice(0, 200)}`)
    const created = this.session.json(x, what) as { id?: unknown; plan?: unknown }
    const issued = checkIssuedKey(created, what)
    if (typeof created.id !== "string") fail(`${what}: no account id`)
    const accountId = created.id as string
    this.session.variables.set(accountId, `ACCOUNT_${name}`)
    this.session.variables.set(issued.key, keyVariable)
    this.session.variables.set(issued.id, `KEYID_${keyVariable.slice(4)}`)
    this.session.log.push({
      label: `create account ${name}`,
      origin,
      exchange: x,
      defines: [
        [`ACCOUNT_${name}`, ".id", accountId],
        [keyVariable, ".key", issued.key],
        [`KEYID_${keyVariable.slice(4)}`, ".keyId", issued.id]
      ]
    })
    const account = listed
      ? this.session.model.addAccount(name, accountId, limits, true, x.receivedAt, x.wallSentAt)
      : this.session.model.makeAccount(name, accountId, limits, true, x.receivedAt, x.wallSentAt)
    this.session.model.addKey(account, keyVariable, issued.key, issued.id)
    if (this.session.webhooks !== undefined) await this.setWebhook(name, accountId)
    return account
  }

  /**
   * `PUT /admin/v1/accounts/{id}/webhook` to the checker's receiver (`--webhook-receiver`): `200`
   * with the signing secret (`whsec_` + base64 of at least 24 bytes), kept to verify the deliveries.
   */
  private async setWebhook(name: string, accountId: string): Promise<void> {
    const { ledger, receiver } = this.session.webhooks!
    const path = `/admin/v1/accounts/${accountId}/webhook`
    const url = receiver.urlFor(accountId)
    const x = await this.session.send(`set the webhook endpoint of ${name}`, {
      method: "PUT",
      path,
      headers: this.headers(true),
      body: JSON.stringify({ url })
    })
    const what = `set the webhook endpoint: PUT ${path} with {"url": "${url}"} → ${x.response.status}`
    if (x.response.status === 404) {
      // The account was just created: a 404 here is the server's, not the account's.
      fail(`${what}: the server offers no webhook endpoints (--webhook-receiver needs them): ${x.response.text.slice(0, 200)}`)
    }
    if (x.response.status === 400 || x.response.status === 422) {
      fail(
        `${what}: the server refused the receiver's URL (plain http, on a loopback or private address): run it with ` +
          `PETSTORE_WEBHOOK_ALLOW_PRIVATE=true to check deliveries (${x.response.text.slice(0, 200)})`
      )
    }
    if (x.response.status !== 200) fail(`${what}: expected 200, got ${x.response.text.slice(0, 200)}`)
    const secret = (this.session.json(x, what) as { secret?: unknown }).secret
    if (typeof secret !== "string" || !/^whsec_[A-Za-z0-9+/]+={0,2}$/.test(secret) || Buffer.from(secret.slice(6), "base64").length < 24) {
      fail(`${what}: the secret is not whsec_ followed by the base64 of at least 24 random bytes`)
    }
    const variable = `WHSEC_${name}`
    this.session.variables.set(secret as string, variable)
    this.defineLast([[variable, ".secret", secret as string]])
    ledger.setEndpoint(accountId, secret as string)
  }

  /** `POST /admin/v1/accounts/{id}/keys`: a further key of the account. */
  async issueKey(accountIndex: number): Promise<void> {
    const account = this.session.model.accounts[accountIndex % this.session.model.accounts.length]!
    const keyVariable = this.newKeyVariable(account.name)
    const path = `/admin/v1/accounts/${account.id}/keys`
    const x = await this.session.send(`issue a key for ${account.name}`, { method: "POST", path, headers: this.headers(true), body: "{}" })
    const what = `issue key: POST ${path} → ${x.response.status}`
    if (x.response.status !== 201) fail(`${what}: expected 201, got ${x.response.text.slice(0, 200)}`)
    const issued = checkIssuedKey(this.session.json(x, what), what)
    this.defineLast(this.keyDefines(keyVariable, issued))
    this.session.model.addKey(account, keyVariable, issued.key, issued.id)
  }

  /** Names what the last logged exchange defines, for the replay script. */
  private defineLast(defines: LoggedExchange["defines"]): void {
    const log = this.session.log
    log[log.length - 1] = { ...log[log.length - 1]!, defines }
  }

  /**
   * The key stops working `afterMs` after the server decided `x`: within the exchange's decision
   * window, and on every instance within the bound the server publishes (0: at once).
   */
  private endKey(key: KeyModel, x: HttpExchange, afterMs: number): void {
    const expect = this.session.model.expect
    const { r, s } = decisionWindow(expect, x)
    const lo = s + afterMs
    const hi = r + expect.revocationBoundMs + afterMs
    key.endsAt = key.endsAt === undefined ? { lo, hi } : { lo: Math.min(key.endsAt.lo, lo), hi: Math.min(key.endsAt.hi, hi) }
  }

  private keyDefines(variable: string, issued: { key: string; id: string }): LoggedExchange["defines"] {
    this.session.variables.set(issued.key, variable)
    this.session.variables.set(issued.id, `KEYID_${variable.slice(4)}`)
    return [[variable, ".key", issued.key], [`KEYID_${variable.slice(4)}`, ".id", issued.id]]
  }

  /** `POST /admin/v1/keys/{keyId}/rotate`: a new key; the old one works for `graceSeconds` more. */
  async rotateKey(key: KeyModel, graceSeconds: number): Promise<void> {
    const path = `/admin/v1/keys/${key.keyId}/rotate`
    const ended = key.endsAt !== undefined
    const x = await this.session.send(`rotate ${key.variable} (grace ${graceSeconds} s)`, {
      method: "POST",
      path,
      headers: this.headers(true),
      body: JSON.stringify({ graceSeconds })
    })
    const what = `rotate key: POST ${path} → ${x.response.status}`
    if (key.rotatedTo !== undefined) {
      // A key is rotated once (during its grace or after): 409 naming its successor, and no new key.
      if (x.response.status !== 409) fail(`${what}: the key was rotated already (to ${key.rotatedTo}); expected 409, got ${x.response.text.slice(0, 200)}`)
      expectCode(what, x, ["key_already_rotated"])
      const message = (this.session.json(x, what) as { message?: unknown }).message
      if (typeof message !== "string" || !message.includes(key.rotatedTo)) {
        fail(`${what}: the message ${JSON.stringify(message)} does not name the successor ${key.rotatedTo}`)
      }
      return
    }
    // Rotating a revoked key: 404.
    if (ended && x.response.status === 404) return
    if (x.response.status !== 201) fail(`${what}: expected 201, got ${x.response.text.slice(0, 200)}`)
    const variable = this.newKeyVariable(key.account.name)
    const issued = checkIssuedKey(this.session.json(x, what), what)
    this.defineLast(this.keyDefines(variable, issued))
    this.endKey(key, x, graceSeconds * 1000)
    key.rotatedTo = issued.id
    this.session.model.addKey(key.account, variable, issued.key, issued.id)
  }

  /** `DELETE /admin/v1/keys/{keyId}`: 204, and the key is refused at once. */
  async revokeKey(key: KeyModel): Promise<void> {
    const path = `/admin/v1/keys/${key.keyId}`
    const x = await this.session.send(`revoke ${key.variable}`, { method: "DELETE", path, headers: this.headers(false) })
    const what = `revoke key: DELETE ${path} → ${x.response.status}`
    if (x.response.status !== 204) fail(`${what}: expected 204, got ${x.response.text.slice(0, 200)}`)
    if (x.response.text.length > 0) fail(`${what}: a 204 with a body`)
    this.endKey(key, x, 0)
  }

  /** `GET /admin/v1/accounts/{id}/keys`: metadata of every key, in the state the model knows. */
  async listKeys(accountIndex: number): Promise<void> {
    const account = this.session.model.accounts[accountIndex % this.session.model.accounts.length]!
    const path = `/admin/v1/accounts/${account.id}/keys`
    const x = await this.session.send(`list the keys of ${account.name}`, { method: "GET", path, headers: this.headers(false) })
    const what = `list keys: GET ${path} → ${x.response.status}`
    if (x.response.status !== 200) fail(`${what}: expected 200, got ${x.response.text.slice(0, 200)}`)
    const listed = this.session.json(x, what)
    if (!Array.isArray(listed)) return fail(`${what}: expected an array`)
    if (x.response.text.includes("psk_live_") && listed.some((k) => JSON.stringify(k).length > 0 && this.session.model.accounts.some((a) => a.keys.some((mk) => JSON.stringify(k).includes(mk.secret))))) {
      fail(`${what}: the listing shows a full key; keys are shown only once, at creation`)
    }
    for (const key of account.keys) {
      const entry = listed.find((k) => (k as { id?: unknown }).id === key.keyId) as { state?: unknown; rotatedTo?: unknown } | undefined
      if (entry === undefined) fail(`${what}: key ${key.variable} (${key.keyId}) is not listed`)
      if (entry!.rotatedTo !== (key.rotatedTo ?? null)) {
        fail(`${what}: key ${key.variable} is listed with rotatedTo ${JSON.stringify(entry!.rotatedTo)}, expected ${JSON.stringify(key.rotatedTo ?? null)}`)
      }
      const auth = this.session.model.authOf(key, x.sentAt, x.receivedAt)
      const state = entry!.state
      if (auth === "valid" && state !== "active") fail(`${what}: key ${key.variable} is listed as ${String(state)}, expected active`)
      if (auth === "invalid" && state === "active") fail(`${what}: key ${key.variable} is listed as active, but it was revoked or has expired`)
    }
  }
}
