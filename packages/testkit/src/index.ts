/**
 * @since 1.0.0
 */
export * from "./laws/AccountsLaws.js"
export * from "./laws/AccountStoreLaws.js"
export * from "./laws/LawSuite.js"
export * from "./laws/MessageQueueLaws.js"
export * from "./laws/MessageStoreLaws.js"
export * from "./laws/PetRepositoryLaws.js"
export * from "./laws/PetsLaws.js"
export * from "./laws/ServiceLaws.js"
export * as Invalid from "./arbitraries/Invalid.js"
export * as Valid from "./arbitraries/Valid.js"
export * as HttpExchange from "./conformance/HttpExchange.js"
export * as OpenApiChecker from "./conformance/OpenApiChecker.js"
export * as ConformanceModel from "./conformance/Model.js"
export * as TokenBounds from "./conformance/TokenBounds.js"
export { formatReport, parseKey, runConformance } from "./conformance/Runner.js"
export type { ConformanceFailure, ConformanceOptions, ConformanceReport } from "./conformance/Runner.js"
