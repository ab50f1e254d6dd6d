// BASELINE — not the pet store. Plain node:http answering with constant bytes: no authentication,
// no rate limit, no validation, no store. It is the ceiling the bench compares every target with:
// the same response body on the same machine, with nothing but node's own HTTP work.
//
// GET  /v1/pets...  → 200, the first 20-pet page (the bytes the real servers send)
// POST /v1/pets     → 201, one constant pet, after reading the request body
import * as Http from "node:http"
import { firstPage, pet } from "../fixture.mjs"

const PAGE = Buffer.from(JSON.stringify(firstPage()))
const CREATED = Buffer.from(JSON.stringify(pet(101)))

const server = Http.createServer({ keepAliveTimeout: 5_000 }, (req, res) => {
  if (req.method === "POST") {
    req.on("data", () => {})
    req.on("end", () => {
      res.writeHead(201, { "Content-Type": "application/json", "Content-Length": CREATED.length, Location: "/v1/pets/101" })
      res.end(CREATED)
    })
    return
  }
  res.writeHead(200, { "Content-Type": "application/json", "Content-Length": PAGE.length })
  res.end(PAGE)
})

server.listen(Number(process.env.PORT ?? 0), "127.0.0.1", () => {
  console.log(JSON.stringify({ listening: server.address().port }))
})
process.on("SIGTERM", () => server.close(() => process.exit(0)).closeAllConnections())
