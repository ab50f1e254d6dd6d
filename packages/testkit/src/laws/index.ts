/**
 * The law suites for every store and service of `@petstore/core`. Each registers vitest tests, so
 * this entry needs `vitest` and `@effect/vitest` and is imported from test files only.
 *
 * @since 1.0.0
 */
export * from "./AccountsLaws.js"
export * from "./AccountStoreLaws.js"
export * from "./ConsoleSessionLaws.js"
export * from "./CursorSecretLaws.js"
export * from "./IdempotencyLaws.js"
export * from "./LawSuite.js"
export * from "./LimiterPersistenceLaws.js"
export * from "./LimiterStateStoreLaws.js"
export * from "./MessageQueueLaws.js"
export * from "./MessageStoreLaws.js"
export * from "./PetRepositoryLaws.js"
export * from "./PetsLaws.js"
export * from "./ReadinessLaws.js"
export * from "./RateLimiterLaws.js"
export * from "./ServiceLaws.js"
export * from "./WebhookStoreLaws.js"
export * from "./UsageStoreLaws.js"
