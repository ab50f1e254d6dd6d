/**
 * The caller's span from a W3C `traceparent` header (Trace Context, level 1), through
 * Effect's parser (`effect/http/HttpTraceContext`), so that a request's span continues the trace a proxy or a client
 * started. A header that is absent or malformed starts no trace of its own: the span is a root.
 */
import * as Headers from "effect/http/Headers"
import * as HttpTraceContext from "effect/http/HttpTraceContext"
import * as Option from "effect/Option"
import type * as Tracer from "effect/Tracer"

/** The span `traceparent` names, or `undefined`. */
export const parse = (traceparent: string | undefined): Tracer.ExternalSpan | undefined =>
  traceparent === undefined
    ? undefined
    : Option.getOrUndefined(HttpTraceContext.w3c(Headers.fromRecordUnsafe({ traceparent })))
