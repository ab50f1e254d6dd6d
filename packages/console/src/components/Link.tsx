/** A link to another page of the console: a real `<a href>` (open in a new tab works) that navigates in place on a plain click. */
import type { ComponentChildren } from "preact"
import { navigate } from "../router.js"

/** Props of Link. */
export interface LinkProps {
  readonly href: string
  readonly children: ComponentChildren
}

/** A link within the console. */
export const Link = ({ href, children }: LinkProps) => (
  <a
    href={href}
    onClick={(event) => {
      if (event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return
      event.preventDefault()
      navigate(href)
    }}
  >
    {children}
  </a>
)
