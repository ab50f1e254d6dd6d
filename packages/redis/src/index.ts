/**
 * The pet store's rate limiter on Redis, shared by every instance.
 *
 * @since 1.0.0
 */
export * as LimiterScripts from "./LimiterScripts.js"
export * as RateLimiterRedis from "./RateLimiterRedis.js"
export * as RedisConnection from "./RedisConnection.js"
export * as SentinelMaster from "./SentinelMaster.js"

export { layer } from "./RateLimiterRedis.js"
