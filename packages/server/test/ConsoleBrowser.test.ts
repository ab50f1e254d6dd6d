/**
 * The operator console at `/console` in a real browser: headless Chromium (Debian's `chromium`,
 * driven by playwright-core) against a real `petstore serve` with an admin token, an operator going
 * through every page by keyboard and mouse: sign-in (refused, then accepted), an account created
 * (its key shown once works), renamed, suspended and resumed, its webhook failing then replayed,
 * its usage chart's numbers equal to the admin API's, its key rotated twice (the 409's message
 * shown) and revoked, markup in values shown as text, sign-out (the old cookie refused), and a
 * cross-origin write with the cookie refused. On every page: no console error, no CSP violation, no
 * request to another origin, no serious or critical axe-core violation, a first load of at most
 * 150 KB on the wire, and a screenshot (docs/console/*.png with PETSTORE_CONSOLE_SCREENSHOTS=docs/console).
 */
import * as Fs from "node:fs"
import * as Os from "node:os"
import * as Path from "node:path"
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { axeViolations, CHROMIUM, CHROMIUM_ARGS, firstLoad, screenshotFolder, watch } from "./support/ConsoleBrowser.js"
import * as ServerProcess from "./support/ServerProcess.js"
import * as WebhookReceiver from "./support/WebhookReceiver.js"

const skip = Fs.existsSync(CHROMIUM) || process.env.CI === "true"
  ? undefined
  : `${CHROMIUM} is absent: apt-get install chromium`

const ADMIN_TOKEN = "console-browser-test-admin-token-0123456789"
const MARKUP = "<img src=x onerror=alert(1)>"
const FIRST_LOAD_LIMIT = 150 * 1024

/** Waits for what the page (or the server) will show: a deadline for a loaded machine, not a speed. */
const poll = <A>(read: () => Promise<A> | A) => expect.poll(read, { timeout: 20_000, interval: 100 })

describe.skipIf(skip !== undefined)(`the console in headless Chromium${skip ? ` (${skip})` : ""}`, () => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-console-browser-"))
  const shots = screenshotFolder(folder)
  let server: ServerProcess.Server
  let receiver: WebhookReceiver.Receiver
  let browser: Browser
  let context: BrowserContext
  let page: Page
  let checks: Awaited<ReturnType<typeof watch>>
  let accountId = ""
  let key = ""
  let messageId = ""

  /** An admin API call with the bearer token. */
  const admin = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.url}/admin/v1${path}`, {
      method,
      headers: { authorization: `Bearer ${ADMIN_TOKEN}`, ...(body === undefined ? {} : { "content-type": "application/json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) })
    })
    const text = await response.text()
    return { status: response.status, body: text === "" ? undefined : JSON.parse(text) }
  }
  const pets = (apiKey: string) =>
    fetch(`${server.url}/v1/pets`, { headers: { authorization: `Bearer ${apiKey}` } })
      .then(async (r) => ({ status: r.status, body: await r.json() }))

  /** The page has no serious/critical axe violation, then its screenshot is saved. */
  const audit = async (name: string) => {
    expect(await axeViolations(page), `axe on ${name}`).toEqual([])
    await page.screenshot({ path: Path.join(shots, `${name}.png`), fullPage: true })
  }

  beforeAll(async () => {
    receiver = await WebhookReceiver.start()
    server = await ServerProcess.start({
      PETSTORE_STORE: "memory",
      PETSTORE_ADMIN_TOKEN: ADMIN_TOKEN,
      PETSTORE_WEBHOOK_ALLOW_PRIVATE: "true",
      PETSTORE_WEBHOOK_RETRY_DELAYS: "0.05,0.05",
      PETSTORE_USAGE_FLUSH_SECONDS: "0.2"
    })
    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS })
    context = await browser.newContext({ viewport: { width: 1280, height: 900 } })
    // Nothing leaves this machine even if the page tried (and `watch` reports any other origin).
    await context.route("**/*", (route) =>
      /^(http:\/\/127\.0\.0\.1:\d+\/|data:)/.test(route.request().url()) ? route.continue() : route.abort())
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: server.url })
    page = await context.newPage()
    checks = await watch(page, server.url, [
      // Not signed in yet (the page asks whether it is), a wrong token, and after sign-out.
      { status: 401, path: /^\/console\/session$/ },
      // An account without a webhook endpoint.
      { status: 404, path: /^\/admin\/v1\/accounts\/[^/]+\/webhook$/ },
      // The second rotation of a key, whose message the page shows.
      { status: 409, path: /^\/admin\/v1\/keys\/[^/]+\/rotate$/ }
    ])
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await ServerProcess.stop(server)
    await receiver?.stop()
    Fs.rmSync(folder, { recursive: true, force: true })
  })

  it("sign-in: a wrong token is refused with the server's message, the right one is accepted and kept nowhere", async () => {
    await page.goto(`${server.url}/console`)
    await page.getByLabel("Admin token").fill("not-the-token")
    await page.getByLabel("Admin token").press("Enter")
    await poll(() => page.getByRole("alert").textContent()).toMatch(/\S/)
    const refused = await fetch(`${server.url}/console/session`, {
      method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: "not-the-token" })
    }).then((r) => r.json() as Promise<{ message: string }>)
    expect(await page.getByRole("alert").textContent()).toBe(refused.message)
    await audit("sign-in")

    await page.getByLabel("Admin token").fill(ADMIN_TOKEN)
    await page.getByRole("button", { name: "Sign in" }).click()
    await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor()
    const kept = await page.evaluate<string>(
      "JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }) + location.href + document.documentElement.outerHTML")
    expect(kept).not.toContain(ADMIN_TOKEN)
    const cookie = (await context.cookies()).find((c) => c.name === "petstore_console")
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Strict", path: "/" })
    expect(cookie!.value).not.toContain(ADMIN_TOKEN)
    // A reload keeps the session (the CSRF token is asked for again).
    await page.reload()
    await page.getByRole("heading", { name: "Dashboard", level: 1 }).waitFor()
  }, 60_000)

  it("accounts: create one, its key shown once works on /v1/pets", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Accounts" }).click()
    await page.getByRole("heading", { name: "Accounts", level: 1 }).waitFor()
    await page.getByLabel("Plan", { exact: true }).last().selectOption("pro")
    await page.getByRole("button", { name: "Create account" }).click()
    key = (await page.locator(`[data-secret="API key"]`).textContent())!
    expect(key).toMatch(/^psk_/)
    await poll(() => page.getByText("It is shown only this once").count()).toBe(1)
    expect((await pets(key)).status).toBe(200)
    accountId = (await page.locator("#created-account a").textContent())!
    // The list shows it, newest first; and the search finds it by id.
    await page.locator("#accounts tbody tr").first().getByRole("link", { name: accountId }).waitFor()
    await page.getByLabel("Search").fill(accountId)
    await page.getByRole("button", { name: "Search" }).click()
    await poll(() => page.locator("#accounts tbody tr").count()).toBe(1)
    expect(new URL(page.url()).searchParams.get("q")).toBe(accountId)
    await audit("accounts")
  }, 60_000)

  it("account: renamed (markup shown as text), suspended (403 account_suspended) and resumed (200) with confirmations", async () => {
    await page.locator("#accounts").getByRole("link", { name: accountId }).click()
    await page.getByLabel("Name").fill(MARKUP)
    await page.getByRole("button", { name: "Save" }).click()
    await poll(() => page.locator(`[data-field="name"]`).textContent()).toBe(MARKUP)
    expect(await page.getByRole("heading", { level: 1 }).textContent()).toBe(`Account ${MARKUP}`)
    expect(await page.locator("main img").count()).toBe(0)
    expect((await admin("GET", `/accounts/${accountId}`)).body.name).toBe(MARKUP)

    await page.getByRole("button", { name: "Suspend account" }).click()
    await page.getByRole("dialog").getByRole("button", { name: "Suspend account" }).click()
    await poll(() => page.locator(`[data-field="status"]`).textContent()).toBe("suspended")
    expect(await pets(key)).toMatchObject({ status: 403, body: { code: "account_suspended" } })

    // By keyboard: the button, Enter, and the dialog's own button.
    await page.getByRole("button", { name: "Resume account" }).focus()
    await page.keyboard.press("Enter")
    await page.getByRole("dialog").getByRole("button", { name: "Resume account" }).focus()
    await page.keyboard.press("Enter")
    await poll(() => page.locator(`[data-field="status"]`).textContent()).toBe("active")
    expect((await pets(key)).status).toBe(200)
  }, 60_000)

  it("webhook: markup in its URL shown as text; a failure shows, a replay is delivered, a replay of failures since a time shows its progress", async () => {
    const markupUrl = `${receiver.url}?${MARKUP}`
    await page.getByLabel("Endpoint URL").fill(markupUrl)
    await page.getByRole("button", { name: "Set endpoint" }).click()
    await page.locator(`[data-secret="Signing secret"]`).waitFor()
    const stored = (await admin("GET", `/accounts/${accountId}/webhook`)).body.url
    await poll(() => page.locator(`#webhook-facts [data-field="url"]`).textContent()).toBe(stored)
    expect(await page.locator("main img").count()).toBe(0)

    receiver.status = 500
    await page.getByLabel("Endpoint URL").fill(receiver.url)
    await page.getByRole("button", { name: "Set endpoint" }).click()
    await poll(() => page.locator(`#webhook-facts [data-field="url"]`).textContent()).toBe(receiver.url)
    const sent = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "hello" })
    }).then((r) => r.json() as Promise<{ id: string }>)
    messageId = sent.id
    const row = page.locator(`#messages-table tr[data-message-id="${messageId}"]`)
    await poll(async () => {
      await page.getByRole("button", { name: "Refresh" }).click()
      return row.locator(`[data-field="status"]`).textContent()
    }).toBe("failed")
    await page.reload()
    await poll(() => page.locator(`#webhook-facts [data-field="failingSince"]`).textContent()).not.toBe("—")

    receiver.status = 204
    await row.getByRole("button", { name: `Replay ${messageId}` }).click()
    await poll(async () => {
      await page.getByRole("button", { name: "Refresh" }).click()
      return row.locator(`[data-field="status"]`).textContent()
    }).toBe("delivered")

    // Another failure, replayed with every failure since a minute ago: the progress reaches 1 of 1.
    receiver.status = 500
    const since = new Date(Date.now() - 60_000).toISOString().slice(0, 19)
    const second = await fetch(`${server.url}/v1/messages`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ message: "again" })
    }).then((r) => r.json() as Promise<{ id: string }>)
    await poll(async () => (await admin("GET", `/accounts/${accountId}/messages?status=failed`)).body.map((m: { id: string }) => m.id))
      .toContain(second.id)
    receiver.status = 204
    await page.getByLabel("Failed since (UTC)").fill(since)
    await page.getByRole("button", { name: "Replay failures" }).click()
    await poll(() => page.locator("#replay-progress").textContent()).toContain("1 of 1 done (1 delivered, 0 failed)")
  }, 90_000)

  it("message: the message and its attempts, replay", async () => {
    await page.getByRole("link", { name: messageId }).click()
    await page.getByRole("heading", { name: `Message ${messageId}` }).waitFor()
    // The link names the message alone; the page reads the message, and its account, by its id.
    expect(new URL(page.url()).pathname + new URL(page.url()).search).toBe(`/console/messages/${messageId}`)
    await page.locator("main section").getByRole("link", { name: accountId }).waitFor()
    await poll(() => page.locator("#attempts tbody tr").count()).toBeGreaterThanOrEqual(4)
    expect(await page.locator(`#message-facts [data-field="status"]`).textContent()).toBe("delivered")
    await audit("message")
    await page.getByRole("button", { name: "Replay" }).click()
    await page.getByText("Queued again for one more attempt.").waitFor()
    // An older link, with `?account=`, still shows the message.
    await page.goto(`${server.url}/console/messages/${messageId}?account=${accountId}`)
    await page.locator(`#message-facts [data-field="status"]`).waitFor()
    // Back twice, each step awaited by what it shows: a second step sent while the first is still
    // being carried out (a document restored from the back/forward cache) can be lost.
    await page.goBack()
    await page.getByRole("heading", { name: `Message ${messageId}` }).waitFor()
    await page.goBack()
    await page.getByRole("heading", { name: "Keys" }).waitFor()
  }, 60_000)

  it("usage: the chart's numbers are the admin API's, for the account and each key", async () => {
    // Counts settle (written every 0.2 s): two reads in a row the same.
    let expected: { buckets: Array<{ start: string; total: number }>; byKey: Array<{ prefix: string; buckets: Array<{ total: number }> }> } | undefined
    await poll(async () => {
      const previous = JSON.stringify(expected)
      expected = (await admin("GET", `/accounts/${accountId}/usage?granularity=hour&keys=10`)).body
      return expected!.buckets.some((b) => b.total > 0) && JSON.stringify(expected) === previous
    }).toBe(true)
    await page.getByRole("button", { name: "7 days" }).click()
    await page.getByRole("button", { name: "24 hours" }).click()
    await poll(() => page.locator("#usage-account tbody tr").count()).toBe(expected!.buckets.length)
    const table = await page.locator("#usage-account tbody tr").evaluateAll((rows) =>
      rows.map((row) => ({
        start: row.getAttribute("data-start"),
        values: Object.fromEntries([...row.querySelectorAll("td")].map((td) => [td.getAttribute("data-series"), Number(td.textContent)]))
      })))
    expect(table.map((r) => r.start)).toEqual(expected!.buckets.map((b) => b.start))
    expect(table.map((r) => r.values.total)).toEqual(expected!.buckets.map((b) => b.total))
    for (const k of expected!.byKey) expect(table.map((r) => r.values[k.prefix])).toEqual(k.buckets.map((b) => b.total))
    await audit("account")
  }, 60_000)

  it("keys: rotate shows the successor once, a second rotation shows the 409's message, revoke refuses the key (401)", async () => {
    const keys = (await admin("GET", `/accounts/${accountId}/keys`)).body as Array<{ id: string; prefix: string }>
    const first = keys[0]!
    await page.getByRole("button", { name: `Rotate ${first.prefix}` }).click()
    const successor = (await page.locator(`[data-secret="Successor of ${first.prefix}"]`).textContent())!
    expect((await pets(successor)).status).toBe(200)
    await page.getByRole("button", { name: `Rotate ${first.prefix}` }).click()
    const again = await admin("POST", `/keys/${first.id}/rotate`)
    expect(again.status).toBe(409)
    await poll(() => page.locator("#keys ~ .error, section[aria-labelledby=keys] .error").first().textContent()).toBe(again.body.message)

    const successorPrefix = successor.slice(0, first.prefix.length)
    await page.getByRole("button", { name: `Revoke ${successorPrefix}` }).first().click()
    await page.getByRole("dialog").getByRole("button", { name: `Revoke ${successorPrefix}` }).click()
    await poll(() => page.locator(`#keys-table tr[data-prefix="${successorPrefix}"] [data-field="state"]`).textContent()).toBe("revoked")
    expect((await pets(successor)).status).toBe(401)
  }, 60_000)

  it("dashboard: the 24 h chart, the top accounts and the dependencies", async () => {
    await page.getByRole("navigation").getByRole("link", { name: "Dashboard" }).click()
    await page.locator("#usage-all").waitFor({ state: "attached" })
    await page.locator("#top-total").getByRole("link", { name: accountId }).waitFor()
    await page.locator("#health tbody tr").first().waitFor()
    await audit("dashboard")
  }, 60_000)

  it("every page's first load is at most 150 KB on the wire", async () => {
    const cookies = (await context.cookies()).filter((c) => c.name === "petstore_console")
    const pages: Array<[string, string, (p: Page) => Promise<unknown>, boolean]> = [
      ["sign-in", "/console", (p) => p.getByLabel("Admin token").waitFor(), false],
      ["dashboard", "/console", (p) => p.locator("#health").waitFor(), true],
      ["accounts", "/console/accounts", (p) => p.locator("#accounts").waitFor(), true],
      ["account", `/console/accounts/${accountId}`, (p) => p.locator("#usage-account").waitFor({ state: "attached" }), true],
      ["message", `/console/messages/${messageId}`, (p) => p.locator("#attempts").waitFor(), true]
    ]
    const measured: Record<string, unknown> = {}
    for (const [name, path, ready, signedIn] of pages) {
      const load = await firstLoad(browser, `${server.url}${path}`, signedIn ? cookies : [], ready)
      measured[name] = load
      expect(load.responses.map((r) => r.type).sort()).toEqual(["document", "script", "stylesheet"])
      expect(load.bytes, `${name}: ${JSON.stringify(load)}`).toBeLessThanOrEqual(FIRST_LOAD_LIMIT)
    }
    console.info(`first loads: ${JSON.stringify(measured, null, 2)}`)
  }, 300_000)

  it("a cross-origin write with the cookie is refused; after sign-out the old cookie is refused by /admin/v1", async () => {
    const cookie = (await context.cookies()).find((c) => c.name === "petstore_console")!
    const header = `petstore_console=${cookie.value}`
    const session = await fetch(`${server.url}/console/session`, { headers: { cookie: header } })
      .then((r) => r.json() as Promise<{ csrfToken: string }>)
    const write = (origin: string) =>
      fetch(`${server.url}/admin/v1/accounts`, {
        method: "POST",
        headers: { cookie: header, origin, "x-csrf-token": session.csrfToken, "content-type": "application/json" },
        body: JSON.stringify({ plan: "free" })
      }).then(async (r) => ({ status: r.status, body: await r.json() }))
    expect(await write("http://127.0.0.1:1")).toMatchObject({ status: 403, body: { code: "forbidden_origin" } })
    expect((await write(server.url)).status).toBe(201)

    const read = () =>
      fetch(`${server.url}/admin/v1/accounts/${accountId}`, {
        headers: { cookie: header, origin: server.url, "x-csrf-token": session.csrfToken }
      }).then((r) => r.status)
    expect(await read()).toBe(200)

    await page.getByRole("button", { name: "Sign out" }).click()
    await page.getByLabel("Admin token").waitFor()
    expect(await read()).toBe(401)
    expect(await checks.problems()).toEqual([])
  }, 60_000)
})
