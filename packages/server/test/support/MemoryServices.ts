/** The server's services on the in-memory stores, whatever store the configuration names. */
import type { ServerConfig } from "../../src/Config.js"
import type * as Main from "../../src/Main.js"
import * as StoreRegistry from "../../src/StoreRegistry.js"

export const memoryServices = (config: ServerConfig): Main.ServicesLayer => {
  const { registration, store } = StoreRegistry.builtIn.of(undefined)
  return registration.services(config, store)
}
