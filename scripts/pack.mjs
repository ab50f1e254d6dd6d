// `pnpm pack:packages`: packs every published package (packages/*, not the private bench) as it would
// be published, into ./packs (ignored by git; emptied first), and prints the lines that install them
// into another project, as docs/embedding.md shows. Run after `pnpm build` (the script does not build).
import { execFileSync } from "node:child_process"
import * as Fs from "node:fs"
import * as Path from "node:path"
import { fileURLToPath } from "node:url"

const root = Path.resolve(Path.dirname(fileURLToPath(import.meta.url)), "..")
const out = Path.join(root, "packs")
Fs.rmSync(out, { recursive: true, force: true })
Fs.mkdirSync(out)

const packages = Fs.readdirSync(Path.join(root, "packages"))
  .map((dir) => Path.join(root, "packages", dir))
  .filter((dir) => Fs.existsSync(Path.join(dir, "package.json")))
  .filter((dir) => JSON.parse(Fs.readFileSync(Path.join(dir, "package.json"), "utf8")).private !== true)
for (const dir of packages) {
  if (!Fs.existsSync(Path.join(dir, "dist"))) throw new Error(`${Path.relative(root, dir)}/dist is missing: run \`pnpm build\` first`)
  execFileSync("pnpm", ["pack", "--pack-destination", out], { cwd: dir, stdio: ["ignore", "ignore", "inherit"] })
}
const tarballs = Fs.readdirSync(out).filter((file) => file.endsWith(".tgz")).sort()
console.log(`${tarballs.length} packages packed into ${out}:`)
for (const file of tarballs) console.log(`  ${file}`)
const PEERS = "effect@^4.1.0 @effect/platform-node@^4.1.0"
const overrides = Object.fromEntries(
  tarballs.map((file) => [`@petstore/${file.replace(/^petstore-/, "").replace(/-\d+\.\d+\.\d+.*\.tgz$/, "")}`, `file:${Path.join(out, file)}`])
)
console.log(`
In your project, with npm (7 or later):
  npm install ${out}/*.tgz ${PEERS}

With pnpm: first add to your package.json
  "pnpm": { "overrides": ${JSON.stringify(overrides, null, 2).replace(/\n/g, "\n  ")} }
then:
  pnpm add ${out}/*.tgz ${PEERS}`)
