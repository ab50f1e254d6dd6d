/** The arguments and flags several commands share. */
import * as Argument from "effect/cli/Argument"
import * as Flag from "effect/cli/Flag"

export const accountId = Flag.String("account").pipe(Flag.withDescription("The account's id (acc_...)."))
export const keyId = Argument.String("KEY_ID").pipe(Argument.withDescription("The key's id (key_...)."))
export const messageId = Argument.String("MESSAGE_ID").pipe(Argument.withDescription("The message's id (msg_...)."))
