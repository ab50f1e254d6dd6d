// Writes the scratch project's package.json: a user's app depending on every packed @petstore/*
// tarball and on the peers docs/embedding.md tells them to install. The @petstore/* packages depend on
// one another by version (they are not published), so each is pointed at its tarball: `overrides` for
// npm, `pnpm.overrides` for pnpm.
import * as Fs from "node:fs"
import * as Path from "node:path"

const [tarballs, dir, manager] = process.argv.slice(2)
const files = Fs.readdirSync(tarballs).filter((f) => f.endsWith(".tgz"))
const byName = Object.fromEntries(
  files.map((f) => [`@petstore/${f.replace(/^petstore-/, "").replace(/-\d+\.\d+\.\d+.*\.tgz$/, "")}`, `file:${Path.join(tarballs, f)}`])
)
const manifest = {
  name: "petstore-pack-check",
  private: true,
  type: "module",
  dependencies: {
    ...byName,
    effect: "^4.1.0",
    "@effect/platform-node": "^4.1.0"
  },
  ...(manager === "npm"
    ? { overrides: Object.fromEntries(Object.keys(byName).map((name) => [name, `$${name}`])) }
    : { pnpm: { overrides: byName, onlyBuiltDependencies: ["better-sqlite3"] } })
}
Fs.mkdirSync(dir, { recursive: true })
Fs.writeFileSync(Path.join(dir, "package.json"), JSON.stringify(manifest, null, 2) + "\n")
