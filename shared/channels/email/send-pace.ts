import pThrottle from 'p-throttle';
import { emailSchema, readConfig } from '../../config';

/**
 * Spaces calls to at most `perSecond` a second within this process (SES_SEND_RATE_PER_FUNCTION, set by the
 * stack to this function's share of the account's SES quota). Without a rate, calls go out unpaced.
 */
export function paced<Args extends unknown[], Result>(
  send: (...args: Args) => Promise<Result>,
  perSecond: number | undefined = readConfig(emailSchema()).SES_SEND_RATE_PER_FUNCTION,
): (...args: Args) => Promise<Result> {
  if (!perSecond) return send;
  return pThrottle({ limit: perSecond, interval: 1000 })(send);
}
