/**
 * What the configuration needs to know of a PostgreSQL URL without loading the driver: whether a
 * value names a database rather than a file, and how to print it without its password.
 *
 * @since 1.0.0
 */

/** Whether `value` names a PostgreSQL database rather than a file. */
export const isUrl = (value: string): boolean => /^postgres(ql)?:\/\//i.test(value.trim())

/** `url` with its password replaced by `***` (and nothing else changed), for messages and logs. */
export const redact = (url: string): string => {
  try {
    const parsed = new URL(url)
    if (parsed.password !== "") parsed.password = "***"
    for (const name of ["password", "pass"]) if (parsed.searchParams.has(name)) parsed.searchParams.set(name, "***")
    return parsed.toString()
  } catch {
    return "(a malformed PostgreSQL URL)"
  }
}
