// POSTs to a local receiver through undici's Agent and through node:http with a keep-alive Agent, the
// two clients considered for webhook delivery: requests per second at 16 in flight, 1 KiB bodies.
// Usage: node bench/webhooks/client.mjs [requests]
import * as http from "node:http"
import { createRequire } from "node:module"

const require = createRequire(new URL("../../packages/server/package.json", import.meta.url))
const { Agent } = require("undici")
const total = Number(process.argv[2] ?? 20000)
const body = JSON.stringify({ type: "message.submitted", data: { message: "x".repeat(1000) } })
const headers = { "content-type": "application/json", "webhook-id": "msg_1" }

const server = http.createServer((req, res) => { req.resume(); req.on("end", () => res.writeHead(200).end()) })
await new Promise((r) => server.listen(0, "127.0.0.1", r))
const { port } = server.address()

const undici = new Agent({ connections: 16, keepAliveTimeout: 30_000 })
const viaUndici = async () => {
  const answer = await undici.request({ origin: `http://127.0.0.1:${port}`, path: "/", method: "POST", headers, body })
  await answer.body.dump()
  return answer.statusCode
}
const nodeAgent = new http.Agent({ keepAlive: true, maxSockets: 16 })
const viaNode = () => new Promise((resolve, reject) => {
  const req = http.request({ host: "127.0.0.1", port, path: "/", method: "POST", headers, agent: nodeAgent }, (res) => {
    res.resume()
    res.on("end", () => resolve(res.statusCode))
  })
  req.on("error", reject)
  req.end(body)
})

const run = async (name, send) => {
  let next = 0
  const started = performance.now()
  await Promise.all(Array.from({ length: 16 }, async () => { while (next++ < total) await send() }))
  const seconds = (performance.now() - started) / 1000
  console.log(`${name}: ${Math.round(total / seconds)} requests/s`)
}
for (let round = 0; round < 2; round++) {
  await run("undici Agent.request", viaUndici)
  await run("node:http keep-alive", viaNode)
}
await undici.close()
nodeAgent.destroy()
server.close()
