import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { addressRefusal } from './address-policy';

/** The endpoint's host resolved to an address webhooks may not reach. */
export class RefusedAddressError extends Error {
  override name = 'RefusedAddressError';
}

/**
 * A `lookup` for `http(s).request` that resolves the host and refuses it when any of its addresses may not be
 * reached. The socket connects to exactly the addresses checked here, so a name that resolves to a public
 * address for the check and to a private one a moment later (DNS rebinding) gains nothing: there is no
 * second resolution. Literal IP hosts never reach a lookup; the sender checks those itself.
 */
export const guardedLookup: LookupFunction = (hostname, options, callback) => {
  dnsLookup(hostname, { family: options.family, hints: options.hints, all: true }, (error, addresses: LookupAddress[]) => {
    if (error) {
      callback(error, '', 0);
      return;
    }
    const refusals = addresses.map((entry) => addressRefusal(entry.address)).filter((refusal): refusal is string => refusal !== null);
    if (refusals.length > 0 || addresses.length === 0) {
      callback(
        new RefusedAddressError(
          `${hostname} resolves to an address webhooks may not reach (${refusals.join('; ') || 'no address'})`,
        ) as NodeJS.ErrnoException,
        '',
        0,
      );
      return;
    }
    if (options.all) callback(null, addresses);
    else callback(null, addresses[0]!.address, addresses[0]!.family);
  });
};
