/** Loads something when the page (or what it depends on) changes, with a way to load it again. */
import { useCallback, useEffect, useState } from "preact/hooks"
import { messageOf } from "../api.js"

/** What `useLoad` gives: the value once loaded, the error's message if it failed, and `reload`. */
export interface Loaded<A> {
  readonly value: A | undefined
  readonly error: string | undefined
  readonly reload: () => void
}

/** Runs `load` now and whenever `deps` change or `reload` is called. */
export const useLoad = <A>(load: () => Promise<A>, deps: ReadonlyArray<unknown>): Loaded<A> => {
  const [value, setValue] = useState<A | undefined>(undefined)
  const [error, setError] = useState<string | undefined>(undefined)
  const [generation, setGeneration] = useState(0)
  useEffect(() => {
    let live = true
    load().then(
      (loaded) => {
        if (!live) return
        setValue(loaded)
        setError(undefined)
      },
      (failed) => {
        if (live) setError(messageOf(failed))
      }
    )
    return () => {
      live = false
    }
  }, [...deps, generation])
  const reload = useCallback(() => setGeneration((g) => g + 1), [])
  return { value, error, reload }
}
