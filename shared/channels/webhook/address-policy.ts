import ipaddr from 'ipaddr.js';
import { readConfig, webhookTargetsSchema } from '../../config';

/**
 * Which addresses a webhook may reach. In the deployed stack only public unicast addresses: never loopback,
 * private (RFC 1918), carrier-grade NAT, link-local (which holds the instance metadata service, 169.254.169.254),
 * unique-local IPv6 (fd00:ec2::254, the IPv6 metadata service), multicast, reserved or documentation ranges, nor
 * IPv6 forms that wrap an IPv4 address (6to4, Teredo, NAT64), whose target could be any of those.
 * IPv4-mapped IPv6 addresses (::ffff:10.0.0.1) are judged as the IPv4 address they carry. Any other IPv6
 * address must lie in global unicast, 2000::/3: the deprecated IPv4-compatible form (::7f00:1, that is
 * ::127.0.0.1) and the rest of the unassigned space fall outside it, and no public receiver lives there.
 */

const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3');

/** Why the address may not be reached, or null when it is a public unicast address. */
export function addressRefusal(address: string): string | null {
  const bare = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(bare)) return `${address} is not an IP address`;
  const parsed = ipaddr.process(bare);
  const range = parsed.range();
  if (range !== 'unicast') return `${bare} is a ${range} address`;
  if (parsed instanceof ipaddr.IPv6 && !parsed.match(GLOBAL_UNICAST)) return `${bare} is outside IPv6 global unicast (2000::/3)`;
  return null;
}

/**
 * `WEBHOOK_ALLOW_PRIVATE_TARGETS=true` lets webhooks reach loopback and private addresses over plain HTTP: for
 * the local stack and tests only, where the receiver runs on the same machine. The deployed stack never sets it.
 */
export function privateTargetsAllowed(env?: Record<string, string | undefined>): boolean {
  return readConfig(webhookTargetsSchema(), env).WEBHOOK_ALLOW_PRIVATE_TARGETS;
}
