import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

/** What a webhook destination may be: the settings that relax the rules are for development and tests. */
export interface DestinationPolicy {
  /** http:// accepted as well as https:// */
  allowHttp: boolean;
  /** loopback, private, link-local and metadata addresses accepted */
  allowPrivate: boolean;
}

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3');
const NAT64_WELL_KNOWN = ipaddr.IPv6.parseCIDR('64:ff9b::/96');

/**
 * A literal address as ipaddr.js should read it: a trailing dotted quad written as hex first, because ipaddr.js 2.5
 * reads the IPv4-compatible `::a.b.c.d` as the IPv4-mapped `::ffff:a.b.c.d`.
 */
function parseLiteral(address: string, family: number): ipaddr.IPv4 | ipaddr.IPv6 {
  if (family === 4) return ipaddr.IPv4.parse(address);
  const hex = address.replace(/(\d+)\.(\d+)\.(\d+)\.(\d+)$/, (_, a: string, b: string, c: string, d: string) =>
    [(Number(a) << 8) | Number(b), (Number(c) << 8) | Number(d)].map((n) => n.toString(16)).join(':'),
  );
  return ipaddr.IPv6.parse(hex);
}

/** The IPv4 address in the last 32 bits of an IPv6 one. */
const lastFour = (v6: ipaddr.IPv6) => new ipaddr.IPv4(v6.toByteArray().slice(12));

/**
 * True when `address` (v4 or v6) is one a webhook must not reach (server-side request forgery): anything in IANA's
 * special-purpose registries, as ipaddr.js keeps them (`range()` other than plain `unicast`: this host, private
 * networks, link-local with cloud metadata at 169.254.169.254 and fd00:ec2::254, carrier-grade NAT, documentation,
 * benchmarking, 6to4 and its relay 192.88.99.0/24, Teredo, NAT64 local-use, multicast, reserved), and any IPv6 outside
 * 2000::/3, the only block IANA allocates for global unicast (so the deprecated IPv4-compatible ::/96 and prefixes
 * newer than ipaddr.js's table, such as 100:0:0:1::/64, are refused too). An IPv4 address carried in IPv6
 * (IPv4-mapped, or behind the NAT64 well-known prefix 64:ff9b::/96) is judged as that IPv4 address.
 */
export function isForbiddenAddress(address: string): boolean {
  const bare = address.replace(/%.*$/, ''); // a zone (fe80::1%eth0) does not change the range
  const family = isIP(bare);
  if (family === 0) return true;
  const ip = parseLiteral(bare, family);
  if (ip instanceof ipaddr.IPv4) return ip.range() !== 'unicast';
  if (ip.isIPv4MappedAddress() || ip.match(NAT64_WELL_KNOWN)) return lastFour(ip).range() !== 'unicast';
  return ip.range() !== 'unicast' || !ip.match(GLOBAL_UNICAST_V6);
}

/**
 * A refusal of a destination, for the `url` field. `relaxedBy` names the policy flag that would have accepted it
 * (http:// by `allowHttp`, a loopback, private or special address by `allowPrivate`), so a caller can name its setting.
 */
export class DestinationError extends Error {
  constructor(
    message: string,
    readonly relaxedBy?: keyof DestinationPolicy,
  ) {
    super(message);
  }
}

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
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && policy.allowHttp))
    throw new DestinationError('must be an https:// URL', url.protocol === 'http:' ? 'allowHttp' : undefined);
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
    throw new DestinationError('must not point at a loopback, private, link-local or metadata address', 'allowPrivate');
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
