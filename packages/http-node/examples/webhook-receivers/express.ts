import { verify, WebhookVerificationError } from "@petstore/core/webhooks"
import express from "express"
import type { Server } from "node:http"

export const start = (secret: string, onEvent: (event: unknown) => void, port = 0): Promise<Server> => {
  const app = express()
  // The raw body on this route: a body re-serialised by express.json() no longer matches the signature.
  app.post("/webhooks/petstore", express.raw({ type: "application/json" }), (req, res) => {
    try {
      onEvent(verify(secret, req.body as Buffer, req.headers))
      res.status(204).end()
    } catch (error) {
      if (!(error instanceof WebhookVerificationError)) throw error
      res.status(400).json({ error: error.message })
    }
  })
  app.use(express.json()) // the application's other routes may parse JSON as usual
  return new Promise((resolve) => { const server = app.listen(port, "127.0.0.1", () => resolve(server)) })
}
