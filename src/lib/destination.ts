import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { BlockList, isIP } from 'node:net';

/** What a webhook destination may be (issue 14): the settings that relax the rules are for development and tests. */
export interface DestinationPolicy {
  /** http:// accepted as well as https:// */
  allowHttp: boolean;
  /** loopback, private, link-local and metadata addresses accepted */
  allowPrivate: boolean;
}

/**
 * Addresses a webhook must never reach (server-side request forgery): this host, private networks, link-local
 * (cloud metadata at 169.254.169.254 and fd00:ec2::254), carrier-grade NAT, multicast, reserved, unspecified.
 */
const BLOCKED = new BlockList();
for (const [net, bits] of [
  ['0.0.0.0', 8],
  ['10.0.0.0', 8],
  ['100.64.0.0', 10],
  ['127.0.0.0', 8],
  ['169.254.0.0', 16],
  ['172.16.0.0', 12],
  ['192.0.0.0', 24],
  ['192.0.2.0', 24],
  ['192.168.0.0', 16],
  ['198.18.0.0', 15],
  ['198.51.100.0', 24],
  ['203.0.113.0', 24],
  ['224.0.0.0', 4],
  ['240.0.0.0', 4],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv4');
for (const [net, bits] of [
  ['::', 128],
  ['::1', 128],
  ['64:ff9b::', 96],
  ['100::', 64],
  ['2001:db8::', 32],
  ['fc00::', 7],
  ['fe80::', 10],
  ['ff00::', 8],
] as const)
  BLOCKED.addSubnet(net, bits, 'ipv6');

/** True when `address` (v4 or v6, v4-mapped v6 read as v4) is one a webhook must not reach. */
export function isForbiddenAddress(address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) return isForbiddenAddress(mapped[1]);
  const family = isIP(address);
  if (family === 4) return BLOCKED.check(address, 'ipv4');
  if (family === 6) return BLOCKED.check(address, 'ipv6') || /^::ffff:/i.test(address);
  return true;
}

/** A refusal of a destination, for the `url` field. */
export class DestinationError extends Error {}

const resolveAll = (host: string) =>
  new Promise<LookupAddress[]>((resolve, reject) => dnsLookup(host, { all: true, verbatim: true }, (err, addrs) => (err ? reject(err) : resolve(addrs))));

/** Checks the URL's form (scheme, no credentials) and every address its host resolves to now. */
export async function checkDestination(raw: string, policy: DestinationPolicy): Promise<URL> {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new DestinationError('must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp)) throw new DestinationError('must be an https:// URL');
  if (url.username || url.password) throw new DestinationError('must not carry a user name or password');
  if (url.hash) throw new DestinationError('must not have a #fragment');
  if (policy.allowPrivate) return url;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let addresses: LookupAddress[];
  try {
    addresses = await resolveAll(host);
  } catch {
    throw new DestinationError(`host ${host} does not resolve`);
  }
  if (addresses.length === 0 || addresses.some((a) => isForbiddenAddress(a.address)))
    throw new DestinationError('must not point at a loopback, private, link-local or metadata address');
  return url;
}

/**
 * A `lookup` for http(s).request that refuses a forbidden address at connection time, so a name that resolved
 * to a public address when the endpoint was added cannot be re-pointed at an internal one (DNS rebinding).
 */
export function guardedLookup(policy: DestinationPolicy) {
  return (
    hostname: string,
    options: { all?: boolean },
    callback: (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void,
  ): void => {
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addrs) => {
      if (err) return callback(err, '', 0);
      const allowed = policy.allowPrivate ? addrs : addrs.filter((a) => !isForbiddenAddress(a.address));
      if (allowed.length === 0 || allowed.length !== addrs.length) {
        const refused = Object.assign(new Error(`refused: ${hostname} resolves to a forbidden address`), { code: 'EFORBIDDENADDR' });
        return callback(refused, '', 0);
      }
      if (options.all) return callback(null, allowed);
      callback(null, allowed[0].address, allowed[0].family);
    });
  };
}
