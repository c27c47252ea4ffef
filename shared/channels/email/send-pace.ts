import pThrottle from 'p-throttle';

/**
 * Spaces calls to at most `perSecond` a second within this process (SES_SEND_RATE_PER_FUNCTION, set by the
 * stack to this function's share of the account's SES quota). Without a rate, calls go out unpaced.
 */
export function paced<Args extends unknown[], Result>(
  send: (...args: Args) => Promise<Result>,
  perSecond: number | undefined = Number(process.env.SES_SEND_RATE_PER_FUNCTION) || undefined,
): (...args: Args) => Promise<Result> {
  if (!perSecond) return send;
  return pThrottle({ limit: perSecond, interval: 1000 })(send);
}
