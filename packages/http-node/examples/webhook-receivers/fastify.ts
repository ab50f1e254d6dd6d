import { verify, WebhookVerificationError } from "@petstore/core/webhooks"
import Fastify, { type FastifyInstance } from "fastify"

export const start = async (secret: string, onEvent: (event: unknown) => void, port = 0): Promise<FastifyInstance> => {
  const app = Fastify()
  await app.register(async (hooks) => {
    // In this plugin only, JSON bodies arrive as the raw Buffer the signature covers.
    hooks.addContentTypeParser("application/json", { parseAs: "buffer" }, (_req, body, done) => done(null, body))
    hooks.post("/webhooks/petstore", async (req, reply) => {
      try {
        onEvent(verify(secret, req.body as Buffer, req.headers))
        return reply.code(204).send()
      } catch (error) {
        if (!(error instanceof WebhookVerificationError)) throw error
        return reply.code(400).send({ error: error.message })
      }
    })
  })
  await app.listen({ port, host: "127.0.0.1" })
  return app
}
