/**
 * What the console's browser test checks on every page, in headless Chromium (playwright-core):
 * problems the page must not have (console errors, uncaught errors, CSP violations, failed requests,
 * requests to another origin), axe-core's serious and critical violations, the bytes a first load
 * takes on the wire, and screenshots.
 *
 * axe-core is evaluated in the page through the DevTools protocol (`page.evaluate` of its source),
 * which the page's Content-Security-Policy does not govern: the CSP stays on while axe runs (no
 * `bypassCSP`), so a violation the page would cause is still seen.
 */
import * as Fs from "node:fs"
import { createRequire } from "node:module"
import * as Path from "node:path"
import type { Browser, BrowserContext, Page } from "playwright-core"

export const CHROMIUM = "/usr/bin/chromium"

export const CHROMIUM_ARGS = [
  "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
  "--disable-background-networking", "--disable-component-update", "--disable-sync"
]

/** Every `securitypolicyviolation` event of the page, kept where the test can read it. */
const RECORD_CSP_VIOLATIONS = `
  window.__cspViolations = [];
  document.addEventListener("securitypolicyviolation", (e) =>
    window.__cspViolations.push(e.violatedDirective + " " + e.blockedURI));
`

/** An answer of 400 or more that the page is meant to get: its status, and a pattern of its URL's path. */
export interface Expected {
  readonly status: number
  readonly path: RegExp
}

/**
 * What the page did that it must not; read it at the end (`problems`). An answer of 400 or more is
 * one, unless `expected` names it (the session's `401` before sign-in, a `409` the page shows):
 * Chromium reports each such answer as a console error too ("Failed to load resource"), which is
 * then left out with it.
 */
export const watch = async (page: Page, origin: string, expected: ReadonlyArray<Expected>) => {
  const problems: Array<string> = []
  const isExpected = (status: number, url: string) =>
    url.startsWith(origin) && expected.some((e) => e.status === status && e.path.test(new URL(url).pathname))
  await page.addInitScript({ content: RECORD_CSP_VIOLATIONS })
  page.on("console", (message) => {
    if (message.type() !== "error") return
    const status = /^Failed to load resource: the server responded with a status of (\d+)/.exec(message.text())
    if (status && isExpected(Number(status[1]), message.location().url)) return
    problems.push(`console error: ${message.text()} (${message.location().url})`)
  })
  page.on("pageerror", (error) => problems.push(`uncaught: ${error.message}`))
  page.on("dialog", (dialog) => {
    problems.push(`dialog: ${dialog.message()}`)
    void dialog.dismiss()
  })
  // A request the page's own navigation cut short (a reload while a read was under way) is no failure.
  page.on("requestfailed", (request) => {
    if (request.failure()?.errorText !== "net::ERR_ABORTED") problems.push(`failed: ${request.url()} (${request.failure()?.errorText})`)
  })
  page.on("response", (response) => {
    if (response.status() >= 400 && !isExpected(response.status(), response.url())) problems.push(`${response.status()}: ${response.url()}`)
  })
  page.on("request", (request) => {
    const url = request.url()
    if (!url.startsWith("data:") && !url.startsWith("blob:") && new URL(url).origin !== origin) problems.push(`other origin: ${url}`)
  })
  return {
    problems: async () => {
      const violations = page.isClosed() ? [] : await page.evaluate<Array<string>>("window.__cspViolations ?? []")
      return [...problems, ...violations.map((v) => `CSP violation: ${v}`)]
    }
  }
}

const axeSource = Fs.readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

/** axe-core's serious and critical violations on the page as it is now (rule id: the nodes' targets). */
export const axeViolations = async (page: Page): Promise<Array<string>> => {
  await page.evaluate(axeSource)
  const found = await page.evaluate<Array<{ id: string; impact: string | null; targets: Array<string> }>>(`
    axe.run(document, { resultTypes: ["violations"] }).then((result) =>
      result.violations.map((v) => ({ id: v.id, impact: v.impact, targets: v.nodes.map((n) => n.target.join(" ")) })))
  `)
  return found.filter((v) => v.impact === "serious" || v.impact === "critical").map((v) => `${v.impact} ${v.id}: ${v.targets.join(", ")}`)
}

/** A first load's bytes on the wire (headers and encoded bodies) of the HTML, scripts and styles, and each response's encoding. */
export interface FirstLoad {
  readonly bytes: number
  readonly responses: ReadonlyArray<{ readonly url: string; readonly type: string; readonly bytes: number; readonly encoding: string }>
}

/**
 * Loads `url` in a new context of `browser` (an empty cache; `cookies` the session, if any) and adds
 * up what the document, its scripts and its styles took on the wire, once `ready` is on the page.
 */
export const firstLoad = async (
  browser: Browser,
  url: string,
  cookies: Parameters<BrowserContext["addCookies"]>[0],
  ready: (page: Page) => Promise<unknown>
): Promise<FirstLoad> => {
  const context = await browser.newContext()
  try {
    await context.addCookies(cookies)
    const page = await context.newPage()
    const finished: Array<Promise<FirstLoad["responses"][number] | undefined>> = []
    page.on("requestfinished", (request) => {
      const type = request.resourceType()
      if (type !== "document" && type !== "script" && type !== "stylesheet") return
      finished.push((async () => {
        const sizes = await request.sizes()
        const response = await request.response()
        return {
          url: request.url(),
          type,
          bytes: sizes.responseHeadersSize + sizes.responseBodySize,
          encoding: (await response?.headerValue("content-encoding")) ?? "identity"
        }
      })())
    })
    await page.goto(url)
    await ready(page)
    await page.waitForLoadState("networkidle")
    const responses = (await Promise.all(finished)).filter((r) => r !== undefined)
    return { bytes: responses.reduce((sum, r) => sum + r.bytes, 0), responses }
  } finally {
    await context.close()
  }
}

/** Where screenshots go: `PETSTORE_CONSOLE_SCREENSHOTS` (e.g. docs/console, from the repository), else `fallback`. */
export const screenshotFolder = (fallback: string): string => {
  const given = process.env.PETSTORE_CONSOLE_SCREENSHOTS
  if (given === undefined || given === "") return fallback
  const folder = Path.isAbsolute(given) ? given : Path.resolve(Path.dirname(new URL(import.meta.url).pathname), "../../../..", given)
  Fs.mkdirSync(folder, { recursive: true })
  return folder
}
