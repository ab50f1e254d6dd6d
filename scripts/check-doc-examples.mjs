// Part of `pnpm docs:api`: every `@example` in the packages' doc comments compiles. Each ```ts block
// of an @example becomes a file of its own in packages/<name>/.doc-examples/ (ignored by git; it
// imports the packages by name, as a user would), type-checked by tsc with the project's settings.
// The main entry point of each package (MAIN below) must have at least one.
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
/** The module of each package whose doc comments show how to start with it. */
const MAIN = {
  core: "src/Petstore.ts",
  "http-node": "src/NodeHandler.ts",
  sqlite: "src/SqlitePetstore.ts",
  postgres: "src/PostgresPetstore.ts",
  redis: "src/RateLimiterRedis.ts",
  server: "src/Main.ts",
  testkit: "src/conformance/Runner.ts"
}

/** The ```ts blocks of the @example tags of a doc comment's text. */
const examplesOf = (text) =>
  [...text.matchAll(/\/\*\*([\s\S]*?)\*\//g)].flatMap(([, body]) => {
    const lines = body.split("\n").map((line) => line.replace(/^\s*\* ?/, ""))
    const blocks = []
    let inExample = false
    let code = null
    for (const line of lines) {
      if (/^@\w+/.test(line)) inExample = line.startsWith("@example")
      if (!inExample) continue
      if (code === null && /^```(ts|typescript)\s*$/.test(line)) code = []
      else if (code !== null && /^```\s*$/.test(line)) (blocks.push(code.join("\n")), (code = null))
      else if (code !== null) code.push(line)
    }
    return blocks
  })

const sourceFiles = (dir) =>
  Fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = Path.join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === "internal" ? [] : sourceFiles(path)
    return entry.name.endsWith(".ts") ? [path] : []
  })

let failed = false
for (const [name, main] of Object.entries(MAIN)) {
  const dir = Path.join(root, "packages", name)
  const out = Path.join(dir, ".doc-examples")
  Fs.rmSync(out, { recursive: true, force: true })
  const files = []
  for (const file of sourceFiles(Path.join(dir, "src"))) {
    examplesOf(Fs.readFileSync(file, "utf8")).forEach((code, i) => {
      const target = Path.join(out, `${Path.relative(Path.join(dir, "src"), file).replace(/[/.]/g, "_")}_${i + 1}.ts`)
      Fs.mkdirSync(out, { recursive: true })
      // `export {}`: each example is a module of its own (top-level await, no shared names).
      Fs.writeFileSync(target, `// From ${Path.relative(root, file)}\n${code}\nexport {}\n`)
      files.push({ file, target })
    })
  }
  if (!files.some(({ file }) => file === Path.join(dir, main))) {
    console.error(`check-doc-examples: ${Path.relative(root, Path.join(dir, main))}, the main entry of @petstore/${name}, has no @example with a \`\`\`ts block`)
    failed = true
  }
  if (files.length === 0) continue
  Fs.writeFileSync(
    Path.join(out, "tsconfig.json"),
    JSON.stringify({
      extends: "../../../tsconfig.base.json",
      compilerOptions: { noEmit: true, composite: false, declaration: false, declarationMap: false, sourceMap: false, noUnusedLocals: false },
      include: ["*.ts"]
    })
  )
  try {
    execFileSync(Path.join(root, "node_modules/.bin/tsc"), ["-p", out], { stdio: "inherit" })
    console.log(`@petstore/${name}: ${files.length} example(s) compile`)
  } catch {
    console.error(`check-doc-examples: an @example of @petstore/${name} does not compile (above; the files are in ${Path.relative(root, out)})`)
    failed = true
  }
}
if (failed) process.exit(1)
