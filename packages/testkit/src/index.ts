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
