/**
 * The real side of a conformance run: sends requests, checks each response against the OpenAPI
 * document, keeps the log of the current command sequence (printed as curl commands when it
 * fails), and talks to the admin API when there is one.
 *
 * @since 1.0.0
 */
import { codeProblem } from "./AnswerRules.js"
import { type HttpClient, type HttpExchange, type HttpRequest, now, toCurl } from "./HttpExchange.js"
import { type AccountModel, fail, type KeyModel, type Model, type PlanLimits } from "./Model.js"
import type { OpenApiChecker } from "./OpenApiChecker.js"

/** One logged request; `defines` names values of its JSON answer for later commands (`jq` paths). */
export interface LoggedExchange {
  readonly label: string
  /** The instance that answered. */
  readonly origin: string
  readonly exchange: HttpExchange
  readonly defines: ReadonlyArray<readonly [variable: string, jqPath: string, value: string]>
}

/** A key given on the command line, with its account's limits. */
export interface GivenKey {
  readonly key: string
  readonly limits: PlanLimits
}

export interface SessionOptions {
  /** One client per instance of the deployment; requests go to each in turn. */
  readonly clients: ReadonlyArray<HttpClient>
  readonly checker: OpenApiChecker
  readonly model: Model
  readonly publicPrefix: string
  readonly messagesPrefix: string
  readonly adminToken: string | undefined
  readonly givenKeys: ReadonlyArray<GivenKey>
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/**
 * The accounts a sequence creates through the admin API: the free plan (the published numbers), a
 * tight minute (Retry-After of several seconds), a small daily quota, and a roomy one.
 */
export const SEQUENCE_ACCOUNTS: ReadonlyArray<{ readonly name: string; readonly body: object; readonly limits: PlanLimits }> = [
  { name: "FREE", body: { plan: "free" }, limits: { perMinute: 60, perDay: 1_000 } },
  { name: "TIGHT", body: { plan: "enterprise", limits: { perMinute: 5, perDay: 1_000 } }, limits: { perMinute: 5, perDay: 1_000 } },
  { name: "QUOTA", body: { plan: "enterprise", limits: { perMinute: 30, perDay: 8 } }, limits: { perMinute: 30, perDay: 8 } },
  {
    name: "ROOMY",
    body: { plan: "enterprise", limits: { perMinute: 600, perDay: 100_000 } },
    limits: { perMinute: 600, perDay: 100_000 }
  }
]

/** The checker's own account: as roomy as the admin API allows, so its reads are never refused. */
const CHECKER_ACCOUNT = {
  body: { plan: "enterprise", limits: { perMinute: 1_000_000, perDay: 1_000_000_000 } },
  limits: { perMinute: 1_000_000, perDay: 1_000_000_000 }
}

const KEY_FORMAT = /^psk_(live|test)_[0-9A-Za-z]{22,}$/

/** @category models */
export class Session {
  readonly clients: ReadonlyArray<HttpClient>
  readonly checker: OpenApiChecker
  readonly model: Model
  readonly publicPrefix: string
  readonly messagesPrefix: string
  readonly adminToken: string | undefined
  log: Array<LoggedExchange> = []
  /** Answers seen over the whole run, by status and error code (`429 rate_limited` ...). */
  readonly answers = new Map<string, number>()
  /** Literal values (keys, ids) and the shell variables that stand for them in printed commands. */
  readonly variables = new Map<string, string>()
  private sequence = 0
  /** Which instance the next request goes to: in turn, so a burst is split and a read follows a write elsewhere. */
  private turn = 0
  private keyCounter = 0
  private givenKeys: ReadonlyArray<GivenKey>
  private givenSetUp = false
  /** The checker's own key (admin API only); see `setUpChecker`. */
  checkerKey: KeyModel | undefined
  /** The request that created the checker's account, printed before a script that uses its key. */
  private checkerSetUp: Array<LoggedExchange> = []

  constructor(options: SessionOptions) {
    this.clients = options.clients
    this.checker = options.checker
    this.model = options.model
    this.publicPrefix = options.publicPrefix
    this.messagesPrefix = options.messagesPrefix
    this.adminToken = options.adminToken
    this.givenKeys = options.givenKeys
    if (this.adminToken !== undefined) this.variables.set(this.adminToken, "ADMIN_TOKEN")
  }

  get hasAdmin(): boolean {
    return this.adminToken !== undefined
  }

  /** Keys from the command line are not ours to ban or exhaust for long: commands wait when told to. */
  get honoursWaits(): boolean {
    return !this.hasAdmin
  }

  /** Sends and logs a request and checks the response against the OpenAPI document. */
  async send(label: string, request: HttpRequest, defines: LoggedExchange["defines"] = []): Promise<HttpExchange> {
    const client = this.nextClient()
    const exchange = await client.send(request)
    this.log.push({ label, origin: client.origin, exchange, defines })
    this.count(exchange)
    if (!request.path.startsWith("/admin/")) {
      const problems = [...this.checker.check(exchange)]
      const code = codeProblem(exchange)
      if (code !== undefined) problems.push(code)
      if (problems.length > 0) fail(problems.join("\n"))
    } else if (exchange.response.status >= 500) {
      fail(`${request.method} ${request.path} → ${exchange.response.status}: a server error (any 5xx fails)`)
    }
    return exchange
  }

  private nextClient(): HttpClient {
    return this.clients[this.turn++ % this.clients.length]!
  }

  private count(x: HttpExchange) {
    let code = ""
    if (x.response.status >= 400) {
      try {
        code = ` ${String((JSON.parse(x.response.text) as { code?: unknown }).code)}`
      } catch {
        code = " (not JSON)"
      }
    }
    const key = `${x.response.status}${code}`
    this.answers.set(key, (this.answers.get(key) ?? 0) + 1)
  }

  json(x: HttpExchange, what: string): unknown {
    try {
      return JSON.parse(x.response.text)
    } catch {
      return fail(`${what}: the body is not JSON: ${x.response.text.slice(0, 100)}`)
    }
  }

  /** A keyed request to the public API: sent, checked, admitted or not by the model. */
  async keyed(
    label: string,
    key: KeyModel,
    request: Omit<HttpRequest, "headers"> & { readonly headers?: Readonly<Record<string, string>> },
    scheme = "Bearer"
  ): Promise<HttpExchange | undefined> {
    if (this.honoursWaits && !(await this.waitIfTold(key))) return undefined
    const x = await this.send(label, {
      ...request,
      headers: { Authorization: `${scheme} ${key.secret}`, ...request.headers }
    })
    const what = `${label}: ${request.method} ${request.path} → ${x.response.status}`
    const admission = this.model.admission(key, x, what)
    return admission === "allowed" ? x : undefined
  }

  /** Waits (at most 3 s) while the key is told to wait; false when the wait is longer. */
  async waitIfTold(key: KeyModel): Promise<boolean> {
    const at = now()
    if (!this.model.toldToWait(key, at)) return true
    const wait = key.waitUntil.hi - at + 25
    if (wait > 3_000) return false
    await sleep(wait)
    return true
  }

  /** Starts a command sequence: a fresh log, and fresh accounts when there is an admin API. */
  async startSequence(): Promise<void> {
    this.log = []
    this.sequence++
    this.model.chains.length = 0
    this.model.messages.length = 0
    if (this.hasAdmin) {
      this.model.accounts.length = 0
      for (const spec of SEQUENCE_ACCOUNTS) await this.createAccount(`${spec.name}${this.sequence}`, spec.body, spec.limits)
    } else {
      this.setUpGivenKeys()
    }
  }

  /** Before the first sequence: the checker's own account, or the keys given on the command line. */
  async prepare(): Promise<void> {
    await this.setUpChecker()
    if (!this.hasAdmin) this.setUpGivenKeys()
  }

  /** A fresh log for requests outside any command sequence (the inventory), printed if they fail. */
  startPhase(): void {
    this.log = []
  }

  private setUpGivenKeys(): void {
    if (this.givenSetUp) return
    this.givenSetUp = true
    this.givenKeys.forEach((given, i) => {
      const account = this.model.addAccount(`KEY_${i + 1}`, undefined, given.limits, false, now(), Date.now())
      this.model.addKey(account, `KEY_${i + 1}`, given.key, undefined)
      this.variables.set(given.key, `KEY_${i + 1}`)
    })
  }

  private adminHeaders(body: boolean): Record<string, string> {
    return body
      ? { Authorization: `Bearer ${this.adminToken}`, "Content-Type": "application/json" }
      : { Authorization: `Bearer ${this.adminToken}` }
  }

  private newKeyVariable(account: string): string {
    return `KEY_${account}_${++this.keyCounter}`
  }

  private checkIssuedKey(body: unknown, what: string): { key: string; id: string } {
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

  /**
   * With an admin API, the checker's own account (1,000,000 a minute): its read-backs and its
   * inventory are never refused, and commands never pick, exhaust or revoke its key. Its requests
   * still pass through the model like any other.
   */
  async setUpChecker(): Promise<void> {
    if (!this.hasAdmin || this.checkerKey !== undefined) return
    const saved = this.log
    this.log = []
    const account = await this.createAccount("CHECKER", CHECKER_ACCOUNT.body, CHECKER_ACCOUNT.limits, false)
    this.checkerSetUp = this.log
    this.log = saved
    this.checkerKey = account.keys[0]
  }

  /**
   * The key for the checker's own reads: its account's, or else the live key most certain to be
   * admitted (not told to wait, the most tokens).
   */
  readerKey(): KeyModel | undefined {
    if (this.checkerKey !== undefined) return this.checkerKey
    const at = now()
    let best: KeyModel | undefined
    for (const key of this.model.liveKeys(at)) {
      if (this.model.toldToWait(key, at)) continue
      if (best === undefined || key.account.bucket.lower(at) > best.account.bucket.lower(at)) best = key
    }
    return best
  }

  private async createAccount(name: string, body: object, limits: PlanLimits, listed = true): Promise<AccountModel> {
    const keyVariable = this.newKeyVariable(name)
    const request: HttpRequest = {
      method: "POST",
      path: "/admin/v1/accounts",
      headers: this.adminHeaders(true),
      body: JSON.stringify(body)
    }
    const client = this.nextClient()
    const x = await client.send(request)
    this.count(x)
    const what = `create account ${name}: POST /admin/v1/accounts → ${x.response.status}`
    if (x.response.status !== 201) fail(`${what}: expected 201, got ${x.response.text.slice(0, 200)}`)
    const created = this.json(x, what) as { id?: unknown; plan?: unknown }
    const issued = this.checkIssuedKey(created, what)
    if (typeof created.id !== "string") fail(`${what}: no account id`)
    const accountId = created.id as string
    this.variables.set(accountId, `ACCOUNT_${name}`)
    this.variables.set(issued.key, keyVariable)
    this.variables.set(issued.id, `KEYID_${keyVariable.slice(4)}`)
    this.log.push({
      label: `create account ${name}`,
      origin: client.origin,
      exchange: x,
      defines: [
        [`ACCOUNT_${name}`, ".id", accountId],
        [keyVariable, ".key", issued.key],
        [`KEYID_${keyVariable.slice(4)}`, ".keyId", issued.id]
      ]
    })
    const account = listed
      ? this.model.addAccount(name, accountId, limits, true, x.receivedAt, x.wallSentAt)
      : this.model.makeAccount(name, accountId, limits, true, x.receivedAt, x.wallSentAt)
    this.model.addKey(account, keyVariable, issued.key, issued.id)
    return account
  }

  /** `POST /admin/v1/accounts/{id}/keys`: a further key of the account. */
  async issueKey(accountIndex: number): Promise<void> {
    const account = this.model.accounts[accountIndex % this.model.accounts.length]!
    const keyVariable = this.newKeyVariable(account.name)
    const path = `/admin/v1/accounts/${account.id}/keys`
    const x = await this.send(`issue a key for ${account.name}`, { method: "POST", path, headers: this.adminHeaders(true), body: "{}" })
    const what = `issue key: POST ${path} → ${x.response.status}`
    if (x.response.status !== 201) fail(`${what}: expected 201, got ${x.response.text.slice(0, 200)}`)
    const issued = this.checkIssuedKey(this.json(x, what), what)
    this.log[this.log.length - 1] = { ...this.log[this.log.length - 1]!, defines: this.keyDefines(keyVariable, issued) }
    this.model.addKey(account, keyVariable, issued.key, issued.id)
  }

  private keyDefines(variable: string, issued: { key: string; id: string }): LoggedExchange["defines"] {
    this.variables.set(issued.key, variable)
    this.variables.set(issued.id, `KEYID_${variable.slice(4)}`)
    return [[variable, ".key", issued.key], [`KEYID_${variable.slice(4)}`, ".id", issued.id]]
  }

  /** `POST /admin/v1/keys/{keyId}/rotate`: a new key; the old one works for `graceSeconds` more. */
  async rotateKey(key: KeyModel, graceSeconds: number): Promise<void> {
    const path = `/admin/v1/keys/${key.keyId}/rotate`
    const ended = key.endsAt !== undefined
    const x = await this.send(`rotate ${key.variable} (grace ${graceSeconds} s)`, {
      method: "POST",
      path,
      headers: this.adminHeaders(true),
      body: JSON.stringify({ graceSeconds })
    })
    const what = `rotate key: POST ${path} → ${x.response.status}`
    if (ended) {
      // Rotating a key that no longer works: 404, or (while its grace runs) a new key.
      if (x.response.status === 404) return
    }
    if (x.response.status !== 201) fail(`${what}: expected 201, got ${x.response.text.slice(0, 200)}`)
    const variable = this.newKeyVariable(key.account.name)
    const issued = this.checkIssuedKey(this.json(x, what), what)
    this.log[this.log.length - 1] = { ...this.log[this.log.length - 1]!, defines: this.keyDefines(variable, issued) }
    const lo = x.sentAt - this.model.expect.decisionSlackMs + graceSeconds * 1000
    const hi = x.receivedAt + this.model.expect.decisionSlackMs + this.model.expect.revocationBoundMs + graceSeconds * 1000
    key.endsAt = key.endsAt === undefined ? { lo, hi } : { lo: Math.min(key.endsAt.lo, lo), hi: Math.min(key.endsAt.hi, hi) }
    this.model.addKey(key.account, variable, issued.key, issued.id)
  }

  /** `DELETE /admin/v1/keys/{keyId}`: 204, and the key is refused at once. */
  async revokeKey(key: KeyModel): Promise<void> {
    const path = `/admin/v1/keys/${key.keyId}`
    const x = await this.send(`revoke ${key.variable}`, { method: "DELETE", path, headers: this.adminHeaders(false) })
    const what = `revoke key: DELETE ${path} → ${x.response.status}`
    if (x.response.status !== 204) fail(`${what}: expected 204, got ${x.response.text.slice(0, 200)}`)
    if (x.response.text.length > 0) fail(`${what}: a 204 with a body`)
    const lo = x.sentAt - this.model.expect.decisionSlackMs
    // Every instance refuses the key within the bound the server publishes (0: at once).
    const hi = x.receivedAt + this.model.expect.decisionSlackMs + this.model.expect.revocationBoundMs
    key.endsAt = key.endsAt === undefined ? { lo, hi } : { lo: Math.min(key.endsAt.lo, lo), hi: Math.min(key.endsAt.hi, hi) }
  }

  /** `GET /admin/v1/accounts/{id}/keys`: metadata of every key, in the state the model knows. */
  async listKeys(accountIndex: number): Promise<void> {
    const account = this.model.accounts[accountIndex % this.model.accounts.length]!
    const path = `/admin/v1/accounts/${account.id}/keys`
    const x = await this.send(`list the keys of ${account.name}`, { method: "GET", path, headers: this.adminHeaders(false) })
    const what = `list keys: GET ${path} → ${x.response.status}`
    if (x.response.status !== 200) fail(`${what}: expected 200, got ${x.response.text.slice(0, 200)}`)
    const listed = this.json(x, what)
    if (!Array.isArray(listed)) return fail(`${what}: expected an array`)
    if (x.response.text.includes("psk_live_") && listed.some((k) => JSON.stringify(k).length > 0 && this.model.accounts.some((a) => a.keys.some((mk) => JSON.stringify(k).includes(mk.secret))))) {
      fail(`${what}: the listing shows a full key; keys are shown only once, at creation`)
    }
    for (const key of account.keys) {
      const entry = listed.find((k) => (k as { id?: unknown }).id === key.keyId) as { state?: unknown } | undefined
      if (entry === undefined) fail(`${what}: key ${key.variable} (${key.keyId}) is not listed`)
      const auth = this.model.authOf(key, x.sentAt, x.receivedAt)
      const state = entry!.state
      if (auth === "valid" && state !== "active") fail(`${what}: key ${key.variable} is listed as ${String(state)}, expected active`)
      if (auth === "invalid" && state === "active") fail(`${what}: key ${key.variable} is listed as active, but it was revoked or has expired`)
    }
  }

  /** The log of the current sequence as a replayable shell script. */
  curlScript(): string {
    const substitute = (s: string): string => {
      let out = s
      for (const [literal, variable] of this.variables) if (literal.length >= 8) out = out.split(literal).join(`$${variable}`)
      return out
    }
    const lines: Array<string> = [
      "# Set ADMIN_TOKEN (and KEY_n for keys given on the command line) before running.",
      "set -u"
    ]
    const checkerSecret = this.checkerKey?.secret
    const usesChecker = checkerSecret !== undefined && this.log.some((e) => JSON.stringify(e.exchange.request.headers).includes(checkerSecret))
    for (const entry of usesChecker ? [...this.checkerSetUp, ...this.log] : this.log) {
      const request: HttpRequest = { ...entry.exchange.request, path: substitute(entry.exchange.request.path) }
      const curl = toCurl(entry.origin, request, substitute)
      lines.push(`# ${entry.label} (got ${entry.exchange.response.status})`)
      if (entry.defines.length === 0) {
        lines.push(curl)
      } else {
        lines.push(`RESPONSE=$(${curl.replace("curl -sS -i", "curl -sS")})`)
        for (const [variable, jq] of entry.defines) lines.push(`${variable}=$(printf '%s' "$RESPONSE" | jq -r '${jq}')`)
      }
    }
    return lines.join("\n")
  }
}
