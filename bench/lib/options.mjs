// A bench script's options: `--name value` in its arguments.

/** The value after `--name` in the script's arguments, else `fallback`. */
export const option = (name, fallback) => {
  const argv = process.argv.slice(2)
  const i = argv.indexOf(`--${name}`)
  return i === -1 ? fallback : argv[i + 1]
}
