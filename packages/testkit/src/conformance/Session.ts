/**
 * The real side of a conformance run: sends requests, checks each response against the OpenAPI
 * document, keeps the log of the current command sequence (printed as curl commands when it
 * fails, see `SessionLog`), and talks to the admin API when there is one (see `AdminApi`).
 */
import { UsageTally } from "./UsageCheck.js"
import { AdminApi, type AdminSession } from "./AdminApi.js"
import { codeProblem } from "./AnswerRules.js"
import { type HttpClient, type HttpExchange, type HttpRequest, now } from "./HttpExchange.js"
import type { Model } from "./Model.js"
import type { KeyModel, PlanLimits } from "./ModelRecords.js"
import type { OpenApiChecker } from "./OpenApiChecker.js"
import { curlScript, type LoggedExchange } from "./SessionLog.js"
import { fail } from "./Violation.js"
import type { WebhookLedger } from "./WebhookLedger.js"
import type { WebhookReceiver } from "./WebhookReceiver.js"

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
  /** With `--webhook-receiver`: the receiver each account's endpoint is set to, and what was set and accepted. */
  readonly webhooks?: { readonly receiver: WebhookReceiver; readonly ledger: WebhookLedger } | undefined
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

/** @category models */
export class Session implements AdminSession {
  readonly clients: ReadonlyArray<HttpClient>
  readonly checker: OpenApiChecker
  readonly model: Model
  readonly publicPrefix: string
  readonly messagesPrefix: string
  readonly adminToken: string | undefined
  readonly webhooks: SessionOptions["webhooks"]
  log: Array<LoggedExchange> = []
  /** Answers seen over the whole run, by status and error code (`429 rate_limited` ...). */
  readonly answers = new Map<string, number>()
  /** The answers each account's keys got, for the usage check at the end of the run. */
  readonly usage = new UsageTally()
  /** Literal values (keys, ids) and the shell variables that stand for them in printed commands. */
  readonly variables = new Map<string, string>()
  /** The admin API calls (only with an admin token). */
  readonly admin = new AdminApi(this)
  private sequence = 0
  /** Which instance the next request goes to: in turn, so a burst is split and a read follows a write elsewhere. */
  private turn = 0
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
    this.webhooks = options.webhooks
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
    const { exchange, origin } = await this.sendUnlogged(request)
    this.log.push({ label, origin, exchange, defines })
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

  /** Sends a request to the next instance and counts its answer, but neither logs nor checks it (the caller does). */
  async sendUnlogged(request: HttpRequest): Promise<{ readonly exchange: HttpExchange; readonly origin: string }> {
    const client = this.nextClient()
    const exchange = await client.send(request)
    this.count(exchange)
    return { exchange, origin: client.origin }
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
    this.usage.see(x)
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
      this.usage.note(this.model.accounts)
      this.model.accounts.length = 0
      for (const spec of SEQUENCE_ACCOUNTS) await this.admin.createAccount(`${spec.name}${this.sequence}`, spec.body, spec.limits)
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

  /**
   * With an admin API, the checker's own account (1,000,000 a minute): its read-backs and its
   * inventory are never refused, and commands never pick, exhaust or revoke its key. Its requests
   * still pass through the model like any other.
   */
  async setUpChecker(): Promise<void> {
    if (!this.hasAdmin || this.checkerKey !== undefined) return
    const saved = this.log
    this.log = []
    const account = await this.admin.createAccount("CHECKER", CHECKER_ACCOUNT.body, CHECKER_ACCOUNT.limits, false)
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

  /** The log of the current sequence as a replayable shell script. */
  curlScript(): string {
    const checkerSecret = this.checkerKey?.secret
    const usesChecker = checkerSecret !== undefined && this.log.some((e) => JSON.stringify(e.exchange.request.headers).includes(checkerSecret))
    return curlScript(usesChecker ? [...this.checkerSetUp, ...this.log] : this.log, this.variables)
  }
}
