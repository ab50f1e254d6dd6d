/**
 * The API reference at `/docs` in a real browser: headless Chromium (Debian's `chromium`, driven by
 * playwright-core; no browser is downloaded) loads the page from a real `petstore serve`, with a
 * new empty profile. The page must load with no console error, no failed request and no request to
 * another origin; show the five operations; and its own "try it" (Scalar's request client, driven
 * through its UI) must send `GET /v1/pets` with the key typed into it and show the 200. The same
 * under a host's mount: the application served at `/petstore` by a node:http host.
 *
 * Set PETSTORE_DOCS_SCREENSHOT=/some/file.png to keep a screenshot of the answered request.
 */
import { Accounts, MessageProcessor, Petstore } from "@petstore/core"
import { App, NodeHandler } from "@petstore/http-node"
import { Effect, Layer, ManagedRuntime, Option, Redacted } from "effect"
import * as Fs from "node:fs"
import * as Http from "node:http"
import type { AddressInfo } from "node:net"
import * as Os from "node:os"
import * as Path from "node:path"
import { type BrowserContext, chromium, type Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import * as ServerProcess from "./support/ServerProcess.js"

const CHROMIUM = "/usr/bin/chromium"
const skip = Fs.existsSync(CHROMIUM) || process.env.CI === "true"
  ? undefined
  : `${CHROMIUM} is absent: apt-get install chromium`

const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"
]

const OPERATIONS = ["listPets", "createPet", "getPet", "createMessage", "getMessage"]

/** What the page did that it must not: console errors, uncaught errors, failed requests, other origins. */
const watch = (page: Page, origin: string) => {
  const problems: Array<string> = []
  page.on("console", (message) => {
    if (message.type() === "error") problems.push(`console error: ${message.text()}`)
  })
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`))
  page.on("requestfailed", (request) => problems.push(`failed: ${request.url()} (${request.failure()?.errorText})`))
  page.on("response", (response) => {
    if (response.status() >= 400) problems.push(`${response.status()}: ${response.url()}`)
  })
  page.on("request", (request) => {
    const url = request.url()
    if (!url.startsWith("data:") && new URL(url).origin !== origin) problems.push(`other origin: ${url}`)
  })
  return problems
}

describe.skipIf(skip !== undefined)(`/docs in headless Chromium${skip ? ` (${skip})` : ""}`, () => {
  const folder = Fs.mkdtempSync(Path.join(Os.tmpdir(), "petstore-docs-browser-"))
  let server: ServerProcess.Server | undefined
  let browser: BrowserContext | undefined
  let key = ""

  beforeAll(async () => {
    server = await ServerProcess.start({ PETSTORE_STORE: "memory" })
    // The demo account's key, printed once at the first start on an empty store.
    key = /psk_live_[A-Za-z0-9]+/.exec(server.output())![0]
    const created = await fetch(`${server.url}/v1/pets`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ name: "Rex", categoryId: 1 })
    })
    expect(created.status).toBe(201)
    browser = await chromium.launchPersistentContext(Path.join(folder, "profile"), {
      executablePath: CHROMIUM,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1400, height: 900 }
    })
    // Nothing leaves this machine even if the page tried (and `watch` reports any other origin).
    await browser.route("**/*", (route) =>
      /^(http:\/\/127\.0\.0\.1:\d+\/|data:)/.test(route.request().url()) ? route.continue() : route.abort())
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await ServerProcess.stop(server)
    Fs.rmSync(folder, { recursive: true, force: true })
  })

  /**
   * Opens `<base>/docs`, finds the operations, and uses "try it" on listPets with `key`: the request
   * must reach `<base>/v1/pets` with the key and the page must show its 200 and the pet.
   */
  const tryIt = async (origin: string, base: string, key: string) => {
    const page = await browser!.newPage()
    const problems = watch(page, origin)
    await page.goto(`${origin}${base}/docs`)
    for (const operationId of OPERATIONS) await page.getByText(operationId, { exact: true }).first().waitFor()
    // The prose of the document is on the page.
    await page.getByRole("heading", { name: "Rate limits" }).first().waitFor()

    // "Try it": Scalar's client for listPets, the key typed into its bearer field, then Send.
    const listPets = page.locator(`[id$="/get/v1/pets" i]`).first()
    await listPets.getByRole("button", { name: /test request/i }).first().click()
    const client = page.getByRole("dialog")
    await client.getByLabel(/bearer token/i).first().fill(key)
    const sent = page.waitForRequest((request) =>
      request.method() === "GET" && request.url().split("?")[0] === `${origin}${base}/v1/pets`)
    await client.getByRole("button", { name: /send get request/i }).click()
    expect((await sent).headers()["authorization"]).toBe(`Bearer ${key}`)
    await client.getByText("200 OK").first().waitFor()
    await client.getByText("\"Rex\"").first().waitFor()
    if (process.env.PETSTORE_DOCS_SCREENSHOT) await page.screenshot({ path: process.env.PETSTORE_DOCS_SCREENSHOT })
    await page.close()
    expect(problems).toEqual([])
  }

  it("from a real server: loads cleanly from this server only, shows the five operations, and its \"try it\" gets 200 for GET /v1/pets with a key", () =>
    tryIt(server!.url, "", key), 120_000)

  it("under a host's mount (/petstore): the same page reaches /petstore/v1/pets", async () => {
    const runtime = ManagedRuntime.make(
      App.App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [] }).pipe(
        Layer.provideMerge(Petstore.layerMemory()),
        Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
      )
    )
    const host = Http.createServer(await runtime.runPromise(NodeHandler.makeWith({ basePath: "/petstore" })))
    try {
      await new Promise<void>((listening) => host.listen(0, "127.0.0.1", listening))
      const origin = `http://127.0.0.1:${(host.address() as AddressInfo).port}`
      const mountedKey = await runtime.runPromise(Effect.flatMap(Accounts.Accounts, (accounts) =>
        Effect.map(accounts.create({ plan: "free" }), ({ key }) => Redacted.value(key.key))))
      const created = await fetch(`${origin}/petstore/v1/pets`, {
        method: "POST",
        headers: { authorization: `Bearer ${mountedKey}`, "content-type": "application/json" },
        body: JSON.stringify({ name: "Rex", categoryId: 1 })
      })
      expect(created.status).toBe(201)
      await tryIt(origin, "/petstore", mountedKey)
    } finally {
      // The browser keeps its connections open; they are of no use once the test is over.
      host.closeAllConnections()
      await new Promise((closed) => host.close(closed))
      await runtime.dispose()
    }
  }, 120_000)
})
