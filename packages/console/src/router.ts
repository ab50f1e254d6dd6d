/**
 * The console's pages by path: every page is a URL (`/console`, `/console/accounts`,
 * `/console/accounts/{id}`, `/console/messages/{id}`), read from `location` and changed with
 * `history.pushState`, so each can be linked to, reloaded and reached with Back.
 */
import { useEffect, useState } from "preact/hooks"
import { parse, type Route } from "./routes.js"

export { accountPath, messagePath, type Route } from "./routes.js"

const listeners = new Set<() => void>()

/** Goes to `href` (a same-origin path) without reloading the page. */
export const navigate = (href: string): void => {
  history.pushState(null, "", href)
  for (const listener of listeners) listener()
  window.scrollTo(0, 0)
}

/** The current route, following navigation and Back/Forward. */
export const useRoute = (): Route => {
  const [route, setRoute] = useState(() => parse(location.pathname, location.search))
  useEffect(() => {
    const update = () => setRoute(parse(location.pathname, location.search))
    listeners.add(update)
    window.addEventListener("popstate", update)
    return () => {
      listeners.delete(update)
      window.removeEventListener("popstate", update)
    }
  }, [])
  return route
}
