import { verify, WebhookVerificationError } from "@petstore/core/webhooks"
import * as http from "node:http"

export const start = (secret: string, onEvent: (event: unknown) => void, port = 0): Promise<http.Server> => {
  const server = http.createServer((req, res) => {
    if (req.method !== "POST" || req.url !== "/webhooks/petstore") return void res.writeHead(404).end()
    // Keep the bytes as they came: decoding and re-encoding could change what was signed.
    const chunks: Array<Buffer> = []
    req.on("data", (chunk: Buffer) => chunks.push(chunk))
    req.on("end", () => {
      try {
        onEvent(verify(secret, Buffer.concat(chunks), req.headers))
        res.writeHead(204).end()
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error
        res.writeHead(400, { "content-type": "application/json" }).end(JSON.stringify({ error: error.message }))
      }
    })
  })
  return new Promise((resolve) => server.listen(port, "127.0.0.1", () => resolve(server)))
}
