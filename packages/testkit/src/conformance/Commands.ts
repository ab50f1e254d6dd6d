/**
 * The generators of the model-based conformance run's commands (fast-check `AsyncCommand`s, one
 * module per area: PetCommands, MessageCommands, LimitCommands, KeyCommands): each sends one or a
 * few requests, checks every response against the OpenAPI document and the model, and updates the
 * model. Commands pick keys, pets, listings and messages by index at run time, so any sequence is
 * runnable and shrinking can drop any command.
 */

import * as fc from "fast-check"
import * as Invalid from "../arbitraries/Invalid.js"
import * as Valid from "../arbitraries/Valid.js"
import { type Command, keyPickArb } from "./CommandBase.js"
import { createsWhilePagingPlan } from "./CreatesWhilePaging.js"
import { KeyedMismatch, KeyedRetries } from "./KeyedCreateCommands.js"
import { IssueKey, ListKeys, RevokeKey, RotateKey } from "./KeyCommands.js"
import { BadAuth, Burst, HonourRetryAfter, ParallelBurstCommand, RevokedKeyRequest, UnknownRoute, WrongMethod } from "./LimitCommands.js"
import { AwaitDelivery, ReadMessage, SubmitMessage, SubmitMessageInvalid } from "./MessageCommands.js"
import { parallelBurstSize } from "./ParallelBurst.js"
import { CreatePet, CreatePetInvalid, CreatesWhilePagingCommand, ForgeCursor, GetPet, GetPetInvalid, ListInvalid, ListPets, NextPage } from "./PetCommands.js"

/** Fields a NewPet body may carry that the service ignores (`id` whatever its value, unknown ones). */
const extraPetFields = fc.record(
  { id: fc.oneof(fc.constantFrom(1, 0, -1, 2 ** 53), fc.nat()), note: fc.string({ maxLength: 8 }) },
  { requiredKeys: [] }
)

/** The pet of a keyed create (its name comes from its key). */
const keyedPet = fc.record({ categoryId: fc.integer({ min: 1, max: 1_000 }), status: Valid.petStatus }, { requiredKeys: ["categoryId"] })

/** The command generators; admin commands only when the run has an admin token. @category arbitraries */
export const commandArbitraries = (options: { readonly admin: boolean }): Array<fc.Arbitrary<Command>> => {
  const k = keyPickArb
  const publicCommands: Array<fc.Arbitrary<Command>> = [
    fc.tuple(k, Valid.newPet, Valid.bearerScheme).map(([p, pet, s]) => new CreatePet(p, pet, s, {})),
    fc.tuple(k, Valid.newPet, Valid.bearerScheme, extraPetFields).map(([p, pet, s, e]) => new CreatePet(p, pet, s, e)),
    fc.tuple(k, Invalid.invalidNewPet).map(([p, i]) => new CreatePetInvalid(p, i)),
    fc.tuple(k, fc.constantFrom("known", "known", "absent", "largest") as fc.Arbitrary<"known" | "absent" | "largest">, fc.nat()).map(
      ([p, t, i]) => new GetPet(p, t, i)
    ),
    fc.tuple(k, Invalid.invalidPetId).map(([p, i]) => new GetPetInvalid(p, i)),
    fc.tuple(k, fc.record({ limit: fc.integer({ min: 1, max: 4 }), status: Valid.petStatus }, { requiredKeys: ["limit"] })).map(
      ([p, q]) => new ListPets(p, q)
    ),
    fc.tuple(k, Valid.listQuery, fc.boolean()).map(([p, q, u]) => new ListPets(p, q, u)),
    fc.nat().map((i) => new NextPage(i)),
    fc.nat().map((i) => new NextPage(i)),
    fc.tuple(k, Invalid.invalidListQuery).map(([p, q]) => new ListInvalid(p, q)),
    fc.tuple(fc.nat(), fc.oneof(Invalid.forgeCursor, fc.constant("other_filter" as const))).map(([i, f]) => new ForgeCursor(i, f)),
    fc.tuple(k, Valid.newMessage).map(([p, m]) => new SubmitMessage(p, m.message)),
    fc.tuple(k, Invalid.invalidNewMessage).map(([p, i]) => new SubmitMessageInvalid(p, i)),
    fc.tuple(fc.nat(), k, fc.boolean()).map(([i, p, own]) => new ReadMessage(i, p, own)),
    fc.nat().map((i) => new AwaitDelivery(i)),
    fc.tuple(Invalid.badAuthorization, fc.nat(), fc.option(fc.ipV4(), { nil: undefined })).map(([a, i, ip]) => new BadAuth(a, i, ip)),
    fc.tuple(k, fc.nat()).map(([p, i]) => new WrongMethod(p, i)),
    fc.tuple(k, fc.constantFrom("/store/orders", "/pet", "/pets/1/owner", "/animals", "/messages/x/y", "/PETS", "/Pets", "/pets/")).map(([p, path]) => new UnknownRoute(p, path)),
    fc.tuple(k, fc.integer({ min: 1, max: 8 })).map(([p, n]) => new Burst(p, n, false, 0, 0)),
    fc.tuple(k, fc.integer({ min: 0, max: 13 }), fc.integer({ min: 0, max: 13 })).map(([p, g, e]) => new Burst(p, 0, true, g, e)),
    k.map((p) => new HonourRetryAfter(p)),
    fc.tuple(k, parallelBurstSize).map(([p, n]) => new ParallelBurstCommand(p, n)),
    fc.tuple(k, createsWhilePagingPlan).map(([p, plan]) => new CreatesWhilePagingCommand(p, plan)),
    fc.tuple(k, keyedPet, fc.integer({ min: 1, max: 4 })).map(([p, pet, n]) => new KeyedRetries(p, pet, n)),
    fc.tuple(k, keyedPet).map(([p, pet]) => new KeyedMismatch(p, pet))
  ]
  if (!options.admin) return publicCommands
  return [
    ...publicCommands,
    fc.nat().map((i) => new IssueKey(i)),
    fc.tuple(k, fc.constantFrom(0, 0, 3_600), fc.boolean()).map(([p, g, again]) => new RotateKey(p, g, again)),
    k.map((p) => new RevokeKey(p)),
    fc.nat().map((i) => new ListKeys(i)),
    fc.nat().map((i) => new RevokedKeyRequest(i))
  ]
}
