/**
 * Follows replayed messages until each is delivered or failed: reads the account's messages (every
 * page) once a second while some are still queued or being delivered.
 */
import { useEffect, useState } from "preact/hooks"
import { request } from "../api.js"
import { nextCursor } from "../links.js"
import type { Message } from "../types.js"

/** How many of the replayed messages are done, and how. */
export interface ReplayProgress {
  readonly done: number
  readonly delivered: number
  readonly failed: number
}

const statuses = async (accountId: string): Promise<Map<string, Message["status"]>> => {
  const found = new Map<string, Message["status"]>()
  let cursor: string | undefined
  do {
    const params = new URLSearchParams({ limit: "100" })
    if (cursor !== undefined) params.set("cursor", cursor)
    const answer = await request<ReadonlyArray<Message>>("GET", `/admin/v1/accounts/${encodeURIComponent(accountId)}/messages?${params}`)
    for (const message of answer.body) found.set(message.id, message.status)
    cursor = nextCursor(answer.headers.get("link"))
  } while (cursor !== undefined)
  return found
}

/** The progress of `replayed` (none yet: all zero); calls `onDone` once all are done. */
export const useReplayProgress = (
  accountId: string,
  replayed: ReadonlyArray<string> | undefined,
  onDone: () => void
): ReplayProgress => {
  const [progress, setProgress] = useState<ReplayProgress>({ done: 0, delivered: 0, failed: 0 })
  useEffect(() => {
    if (replayed === undefined) return
    let live = true
    let timer: ReturnType<typeof setTimeout> | undefined
    const poll = async () => {
      const found = await statuses(accountId).catch(() => new Map<string, Message["status"]>())
      if (!live) return
      const delivered = replayed.filter((id) => found.get(id) === "delivered").length
      const failed = replayed.filter((id) => found.get(id) === "failed").length
      setProgress({ done: delivered + failed, delivered, failed })
      if (delivered + failed < replayed.length) timer = setTimeout(poll, 1000)
      else onDone()
    }
    setProgress({ done: 0, delivered: 0, failed: 0 })
    void poll()
    return () => {
      live = false
      if (timer !== undefined) clearTimeout(timer)
    }
  }, [accountId, replayed])
  return progress
}
