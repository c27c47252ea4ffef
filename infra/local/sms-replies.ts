import { phoneConfirmBodySchema } from '../../shared/api/phone-schemas';
import { getUsers, subtreeAgentIds, userIdsOfClient } from '../../shared/store/directory-store';
import { checkCode } from '../../shared/store/phone-verification';
import type { StoredUser } from '../../shared/schemas/directory';

/** The users of a client and the clients below it who have this phone number. */
async function usersWithNumber(clientId: string, phoneNumber: string): Promise<StoredUser[]> {
  const userIds = (await Promise.all((await subtreeAgentIds(clientId)).map(userIdsOfClient))).flat();
  return (await getUsers(userIds)).filter((user) => user.phoneNumber === phoneNumber);
}

/**
 * A reply typed on the SMS fake's page that is not STOP or START, for `npm start`: the verification code sent to a
 * user of the demo client, checked as POST /api/v3/users/{id}/phone/verification/confirm checks it (the same
 * store call, the same six-digit body schema). Deployed, nothing reads replies: codes come back through the API.
 * Returns what the page shows; never the code.
 */
export async function confirmCodeReply(clientId: string, from: string, text: string, now: number): Promise<string> {
  const body = phoneConfirmBodySchema.safeParse({ code: text });
  if (!body.success) return 'not a verification code (six digits), nor STOP or START: ignored';
  const users = await usersWithNumber(clientId, from);
  if (users.length === 0) return 'no user of the demo client has this number';
  let outcome = '';
  for (const user of users) {
    const { result, triesLeft } = await checkCode(user.id, body.data.code, now);
    if (result === 'verified') return `verified: ${user.login}'s number is confirmed`;
    outcome ||=
      result === 'wrong'
        ? `wrong code for ${user.login}; ${triesLeft} ${triesLeft === 1 ? 'try' : 'tries'} left`
        : `no code waits for ${user.login}'s number (expired, tried too often, or never sent): ask for a new one`;
  }
  return outcome;
}
