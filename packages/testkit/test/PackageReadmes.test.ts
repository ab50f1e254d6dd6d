/**
 * Every package has a README with an example that runs, and a LICENSE; its package.json says where it
 * comes from, which Node it needs, what it ships and how to find it. (The PostgreSQL and Redis
 * packages run their examples in their own tests, against a database and a key prefix of their own.)
 */
import * as Fs from "node:fs"
import * as Path from "node:path"
import { describe, expect, it } from "vitest"
import { packageDir, runExample } from "./support/ReadmeExample.js"

const PACKAGES = ["core", "http-node", "sqlite", "postgres", "redis", "server", "testkit"]

/**
 * Modules a package's declarations name although only an @types development dependency types them:
 * a known gap (the PostgreSQL adapter's `Database` exposes pg's client types), kept from growing.
 */
const TYPED_ELSEWHERE: Record<string, ReadonlyArray<string>> = { postgres: ["pg"] }

/** Whether `module`, as installed for the package in `dir`, carries its own type declarations. */
const shipsTypes = (dir: string, module: string): boolean => {
  const root = Path.join(dir, "node_modules", module)
  const manifest = JSON.parse(Fs.readFileSync(Path.join(root, "package.json"), "utf8"))
  // Declarations beside the entry's JavaScript (`./dist/index.js`, `./dist/index.d.ts`) count too.
  const entry = typeof manifest.exports?.["."] === "string" ? manifest.exports["."] as string : undefined
  return manifest.types !== undefined || manifest.typings !== undefined || JSON.stringify(manifest.exports ?? {}).includes("\"types\"") ||
    Fs.existsSync(Path.join(root, "index.d.ts")) ||
    (entry !== undefined && Fs.existsSync(Path.join(root, entry.replace(/\.js$/, ".d.ts"))))
}

describe.each(PACKAGES)("@petstore/%s", (name) => {
  const manifest = JSON.parse(Fs.readFileSync(Path.join(packageDir(name), "package.json"), "utf8"))

  it("ships a README and a LICENSE, and says where it comes from, what it needs and what it ships", () => {
    expect(Fs.existsSync(Path.join(packageDir(name), "LICENSE"))).toBe(true)
    expect(Fs.readFileSync(Path.join(packageDir(name), "LICENSE"), "utf8")).toMatch(/^MIT License/)
    expect(manifest.license).toBe("MIT")
    expect(manifest.repository).toEqual({ type: "git", url: expect.stringMatching(/^git\+https:/), directory: `packages/${name}` })
    // The supported Node lines (docs/embedding.md, "Which Node lines"), in engines and in the README.
    expect(manifest.engines.node).toBe("^22.19.0 || ^24.0.0 || ^26.0.0")
    expect(Fs.readFileSync(Path.join(packageDir(name), "README.md"), "utf8")).toContain("Node 22 (22.19 or later), 24 or 26")
    expect(manifest.files).toEqual(expect.arrayContaining(["dist", "README.md", "LICENSE"]))
    expect(manifest.keywords.length).toBeGreaterThan(0)
  })

  it("its README's links work inside the tarball: none leads out of the package by a relative path", () => {
    const readme = Fs.readFileSync(Path.join(packageDir(name), "README.md"), "utf8")
    const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map(([, target]) => target!)
    for (const target of links) {
      if (/^(https?:|#|mailto:)/.test(target)) continue
      // A relative link must name a file the package ships.
      const file = Path.join(packageDir(name), target.replace(/#.*$/, ""))
      expect(Path.relative(packageDir(name), file).startsWith(".."), target).toBe(false)
      expect(manifest.files.some((entry: string) => Path.relative(entry, Path.relative(packageDir(name), file)).startsWith("..") === false), target)
        .toBe(true)
    }
    for (const target of links.filter((t) => t.startsWith(manifest.homepage.replace(/\/tree\/main\/.*$/, "")))) {
      // A link to the repository's docs names a file the repository has.
      const inRepository = target.replace(/^https:\/\/github\.com\/[^/]+\/[^/]+\/(blob|tree)\/main\//, "").replace(/#.*$/, "")
      expect(Fs.existsSync(Path.join(packageDir(name), "../..", inRepository)), target).toBe(true)
    }
  })

  it("its declarations need only its dependencies and peers, and no @types package is a run-time dependency", () => {
    expect(Object.keys(manifest.dependencies ?? {}).filter((dependency) => dependency.startsWith("@types/"))).toEqual([])
    const provided = new Set([...Object.keys(manifest.dependencies ?? {}), ...Object.keys(manifest.peerDependencies ?? {})])
    const declarations = (Fs.readdirSync(Path.join(packageDir(name), "dist"), { recursive: true }) as Array<string>)
      .filter((file) => file.endsWith(".d.ts"))
    expect(declarations.length, "run pnpm build first").toBeGreaterThan(0)
    const needed = new Set<string>()
    for (const file of declarations) {
      const text = Fs.readFileSync(Path.join(packageDir(name), "dist", file), "utf8")
      for (const [, specifier] of text.matchAll(/(?:from |import\()"([^"./][^"]*)"/g)) {
        if (specifier!.startsWith("node:")) continue
        const parts = specifier!.split("/")
        needed.add(specifier!.startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0]!)
      }
    }
    expect([...needed].filter((module) => module !== manifest.name && !provided.has(module))).toEqual([])
    // A module typed only by an @types package (better-sqlite3) would need that package installed by users.
    expect([...needed].filter((module) => module !== manifest.name && !shipsTypes(packageDir(name), module)))
      .toEqual(TYPED_ELSEWHERE[name] ?? [])
  })

  it("takes effect (and @effect/platform-node) as peers, on the 4.x line", () => {
    expect(manifest.dependencies?.effect).toBeUndefined()
    expect(manifest.peerDependencies.effect).toMatch(/^\^4\.\d+/)
    for (const shared of ["@effect/platform-node"]) {
      expect(manifest.dependencies?.[shared]).toBeUndefined()
    }
  })
})

describe("README examples", () => {
  it("core: an account, a pet and a page, in memory", async () => {
    expect(await runExample("core")).toMatch(/^account acc_\w+ \(key psk_live_\w{4}…\): Rex\n$/)
  })

  it("http-node: a node:http server answers GET /v1/pets", async () => {
    expect(await runExample("http-node")).toMatch(/^200 59 \[\]\n$/)
  })

  it("sqlite: a pet written, the file closed, the pet read back", async () => {
    expect(await runExample("sqlite")).toMatch(/^pet 1: Rex, kept in /)
  })

  it("server: started from code, its document fetched, stopped", async () => {
    expect(await runExample("server")).toMatch(/^Pet Store Service \d+\.\d+\.\d+ on http:\/\/127\.0\.0\.1:\d+\n$/)
  })

  it("testkit: arbitraries in a plain script", async () => {
    expect(await runExample("testkit")).toMatch(/categoryId/)
  })
})
