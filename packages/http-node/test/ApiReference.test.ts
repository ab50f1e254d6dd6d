import { describe, expect, it } from "@effect/vitest"
import { Api } from "../src/Api.js"
import * as ApiReference from "../src/ApiReference.js"
import { ERROR_CODES } from "../src/ErrorCodes.js"
import * as OpenApiDocument from "../src/OpenApiDocument.js"

const servers = [
  { url: "https://api.example.com", description: "Production" },
  { url: "http://staging.internal:8080", description: "Staging" }
]
const doc = OpenApiDocument.make({ api: Api, servers })
const html = ApiReference.render(doc)

describe("ApiReference", () => {
  it("lists every operation with its id, method and path", () => {
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        expect(html).toContain(`id="op-${op!.operationId.toLowerCase()}"`)
        expect(html).toContain(`<code>${op!.operationId}</code>`)
        expect(html).toContain(`<code>${path}</code>`)
        expect(html).toContain(`>${method.toUpperCase()}</span>`)
      }
    }
  })

  it("shows badges, parameters with constraints, bodies, response headers, schemas and error codes", () => {
    expect(html).toMatch(/GET<\/span> <code>\/v1\/pets\/\{petId\}<\/code> <span class="badge deprecated">deprecated/)
    expect(html.match(/class="badge stability">experimental/g)).toHaveLength(2)
    expect(html).toContain("≥ 1, ≤ 100, default <code>20</code>")
    expect(html).toContain("≤ 9007199254740991")
    expect(html).toContain(`<a href="#schema-newpet">NewPet</a>`)
    expect(html).toContain(`<a href="#header-retry-after">Retry-After</a>`)
    expect(html.match(/On every response but <code>default<\/code>: <a href="#header-x-ratelimit-limit">/g)).toHaveLength(5)
    expect(html).toContain(`<a href="#header-link-next-page-optional">Link</a> (sometimes)`)
    expect(html).toContain(`<a href="#header-x-ratelimit-limit-optional">X-RateLimit-Limit</a> (sometimes)`)
    expect(html).toMatch(/id="header-retry-after-optional"><code>Retry-After.Optional<\/code><\/span><\/td><td>sometimes</)
    for (const schema of ["Pet", "NewPet", "Error", "Message"]) expect(html).toContain(`id="schema-${schema.toLowerCase()}"`)
    for (const code of Object.keys(ERROR_CODES)) expect(html).toContain(`<code>${code}</code>`)
    for (const tag of ["animals", "messages", "store", "pets"]) expect(html).toContain(`id="tag-${tag}"`)
    expect(html).toContain("Every operation requires authentication.")
  })

  it("is self-contained: no scripts, stylesheets, fonts or URLs other than the servers'", () => {
    expect(html).not.toMatch(/<script|<link|<iframe|<img|\ssrc=|@import|url\(/i)
    const urls = html.match(/https?:\/\/[^\s"'<>)]*/g) ?? []
    expect(urls.length).toBeGreaterThan(0)
    for (const url of urls) expect(servers.map((s) => s.url)).toContain(url)
  })

  it("escapes text taken from the document", () => {
    const hostile = "<script>alert(1)</script>"
    const tampered: OpenApiDocument.OpenApiDocument = {
      ...doc,
      info: { ...doc.info, title: `Pets ${hostile}`, description: `${doc.info.description}\n\n${hostile} & "x"` },
      servers: [{ url: "https://api.example.com/?a=1&b=\"2\"", description: hostile }],
      tags: doc.tags.map((t) => ({ ...t, description: hostile })),
      paths: {
        ...doc.paths,
        "/v1/pets": { ...doc.paths["/v1/pets"], get: { ...doc.paths["/v1/pets"]!.get!, summary: `<img src=x onerror=alert(1)>` } }
      }
    }
    const page = ApiReference.render(tampered)
    expect(page).not.toContain("<script>")
    expect(page).not.toContain("<img")
    expect(page).toContain("&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;x&quot;")
    expect(page).toContain("&lt;img src=x onerror=alert(1)&gt;")
    expect(page).toContain("<code>https://api.example.com/?a=1&amp;b=&quot;2&quot;</code>")
  })
})
