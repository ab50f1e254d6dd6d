/**
 * The application as a Fastify 5 plugin (`@petstore/http-node/fastify`):
 * `app.register(petstore)`, or `app.register(petstore, { prefix: "/petstore" })` under a path.
 *
 * The plugin is encapsulated: it registers the pet store's paths under its prefix, and inside it
 * (only there) Fastify's body parsers are replaced by one that leaves the body unread, so the
 * pet store reads it and answers in the interface's order (a request without a key is 401 before
 * its body is looked at; a body that is not JSON is the interface's Error, not Fastify's). Answers
 * go out through Fastify's `reply`, so the host's hooks and logging see them; the pet store's log
 * lines of a request carry Fastify's id of it as `reqId`, the name Fastify's own lines use.
 *
 * @since 1.0.0
 */
import * as Effect from "effect/Effect"
import type { FastifyInstance, FastifyPluginAsync, FastifyReply, FastifyRequest } from "fastify"
import { App, pathsOf } from "./App.js"
import type { AppResponse } from "./AppResponse.js"
import * as Chunks from "./internal/hosts/chunks.js"
import * as Mount from "./internal/hosts/mount.js"
import * as NodeHost from "./internal/hosts/nodeHost.js"

const send = (reply: FastifyReply, response: AppResponse): void => {
  const { bytes } = response
  // Bytes go as a stream Fastify pipes to the socket as the client reads (none for HEAD).
  const body = bytes === undefined ? response.body : reply.request.method === "HEAD" ? undefined : Chunks.readable(bytes)
  reply.code(response.status).headers(response.headers).send(body)
}

/** Builds the plugin on the current runtime. */
export const plugin: Effect.Effect<FastifyPluginAsync, never, App> = Effect.gen(function*() {
  const paths = pathsOf(yield* App)
  const host = yield* NodeHost.make
  return async (instance: FastifyInstance) => {
    const basePath = Mount.normalizeBasePath(instance.prefix)
    instance.removeAllContentTypeParsers()
    instance.addContentTypeParser("*", (_request, _payload, done) => done(null, undefined))
    const handler = (request: FastifyRequest, reply: FastifyReply): void =>
      // Fastify routed the request here, so it lies under the prefix.
      // Fastify's request id goes on the pet store's log lines as `reqId`, as on Fastify's own.
      NodeHost.serve(host, request.raw, Mount.routedUrl(request.url, basePath)!, basePath, reply, send, undefined, request.id)
    for (const path of paths) instance.all(path.endsWith("/") ? `${path}*` : path, handler)
  }
})
