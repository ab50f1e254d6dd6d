// Run inside the scratch project (see ../pack-check): imports, the effect each package resolves, one
// request through the embedded handler, and each package README's example.
import * as Assert from "node:assert/strict"
import * as Fs from "node:fs"
import * as Http from "node:http"
import * as Path from "node:path"

const manager = process.argv[2]
const here = process.cwd()
const packages = ["core", "http-node", "sqlite", "postgres", "redis", "server", "testkit"]

// 1. Every root entry, and the testkit's plain-Node entries, import in plain Node with no side
//    effect: nothing written, no handle (timer, socket, server) left open, no exit code set.
const entries = [...packages.map((p) => `@petstore/${p}`), "@petstore/testkit/arbitraries", "@petstore/testkit/conformance", "@petstore/testkit/fuzz"]
const written = []
const write = (stream) => {
  const original = stream.write.bind(stream)
  stream.write = (chunk, ...rest) => (written.push(String(chunk)), original(chunk, ...rest))
  return () => (stream.write = original)
}
const restore = [write(process.stdout), write(process.stderr)]
// What the module loader itself has in flight (CloseReq, FSReqCallback) settles within a few ms.
const settled = async () => {
  await new Promise((resolve) => setTimeout(resolve, 50))
  return process.getActiveResourcesInfo().filter((kind) => kind !== "Timeout").sort()
}
const handlesBefore = await settled()
for (const entry of entries) {
  const module = await import(entry)
  Assert.ok(Object.keys(module).length > 0, `${entry} exports nothing`)
}
const handlesAfter = await settled()
restore.forEach((undo) => undo())
Assert.deepEqual(written, [], "importing the packages wrote output")
Assert.deepEqual(handlesAfter, handlesBefore, "importing the packages left a handle open (or a timer: none may be left either)")
Assert.equal(process.getActiveResourcesInfo().filter((kind) => kind === "Timeout").length, 0, "importing the packages left a timer")
Assert.equal(process.exitCode, undefined)
console.log(`imported ${entries.length} entries, no side effects`)

// 2. Each package resolves effect 4.x, and all of them the same copy (Effect's services are keyed by
//    module identity: two copies would not see each other's layers).
const resolveFrom = (dir, name) => {
  for (let at = dir; ; at = Path.dirname(at)) {
    const candidate = Path.join(at, "node_modules", name, "package.json")
    if (Fs.existsSync(candidate)) return Fs.realpathSync(candidate)
    if (Path.dirname(at) === at) throw new Error(`${name} not found from ${dir}`)
  }
}
const effects = new Set()
for (const p of packages) {
  const dir = Path.dirname(resolveFrom(here, `@petstore/${p}`))
  const effect = resolveFrom(dir, "effect")
  const { version } = JSON.parse(Fs.readFileSync(effect, "utf8"))
  Assert.match(version, /^4\./, `@petstore/${p} resolves effect ${version}`)
  effects.add(effect)
}
Assert.equal(effects.size, 1, `the packages resolve several copies of effect: ${[...effects].join(", ")}`)
console.log(`every package resolves effect ${JSON.parse(Fs.readFileSync([...effects][0], "utf8")).version}, one copy`)

// 3. One request through the embedded node:http handler, over in-memory stores.
const { Accounts, MessageProcessor, Petstore } = await import("@petstore/core")
const { App, NodeHandler } = await import("@petstore/http-node")
const { Effect, Layer, ManagedRuntime, Option, Redacted } = await import("effect")
const runtime = ManagedRuntime.make(
  App.App.layer({ quickstartBasePath: "/v1", adminToken: Option.none(), trustProxy: 0, servers: [] }).pipe(
    Layer.provideMerge(Petstore.layerMemory()),
    Layer.provide(MessageProcessor.MessageProcessor.layerRecordOnly)
  )
)
const { key } = await runtime.runPromise(Effect.flatMap(Accounts.Accounts, (accounts) => accounts.create({ plan: "free" })))
const server = Http.createServer(await runtime.runPromise(NodeHandler.make))
await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve))
const response = await fetch(`http://127.0.0.1:${server.address().port}/v1/pets`, {
  headers: { authorization: `Bearer ${Redacted.value(key.key)}` }
})
Assert.equal(response.status, 200)
Assert.deepEqual(await response.json(), [])
await new Promise((resolve) => server.close(resolve))
await runtime.dispose()
console.log("the embedded handler served GET /v1/pets: 200")

// 4. Each package README's example, as a user would copy it.
for (const p of packages) {
  const readme = Fs.readFileSync(Path.join(Path.dirname(resolveFrom(here, `@petstore/${p}`)), "README.md"), "utf8")
  const example = readme.match(/<!-- example -->\s*```js\n([\s\S]*?)```/)
  Assert.ok(example, `@petstore/${p}'s README has no example`)
  const file = Path.join(here, `readme-${p}.mjs`)
  Fs.writeFileSync(file, example[1])
  const { execFileSync } = await import("node:child_process")
  execFileSync(process.execPath, [file], { stdio: "inherit", timeout: 60_000 })
}
console.log(`every README example ran (${manager})`)
