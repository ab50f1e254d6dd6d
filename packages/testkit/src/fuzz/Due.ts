/**
 * Which answers a connection owes: they come in order, one per request, until a request or its
 * answer ends the connection. A request after a broken one (its framing lost), after
 * `Connection: close` or HTTP/1.0 without keep-alive, after a body that never came, after an
 * answer that says `close`, or pipelined behind a request to switch protocols, is owed nothing;
 * every request before is.
 */
import type { ConnectionScript, RawRequest } from "./RawRequest.js"
import type { Answer } from "./ResponseReader.js"

const ends = (script: ConnectionScript, request: RawRequest, answer: Answer | undefined): boolean =>
  request.framing === "broken" || request.asksClose || request.incomplete || (request.switches && script.delivery === "pipelined") ||
  (answer !== undefined && answer.closes)

/** How many answers the script's requests are owed, given the answers received so far. @category predicates */
export const answersDue = (script: ConnectionScript, answers: ReadonlyArray<Answer>): number => {
  const requests = script.requests
  for (let i = 0; i < requests.length; i++) if (ends(script, requests[i]!, answers[i])) return i + 1
  return requests.length
}

/**
 * Whether the server must close the connection once the owed answers are in: the last of them
 * said so, its request asked for it, or its framing was broken.
 *
 * @category predicates
 */
export const closeDue = (script: ConnectionScript, answers: ReadonlyArray<Answer>): boolean => {
  const due = answersDue(script, answers)
  if (answers.length < due || due === 0) return false
  const request = script.requests[due - 1]!
  const answer = answers[due - 1]!
  return request.framing === "broken" || request.asksClose || answer.closes
}
