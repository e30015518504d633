import { BlockList, isIP } from 'node:net';

/** TRUST_PROXY as configured: off, everyone, a hop count, or the proxies' addresses/CIDRs. */
export type TrustProxySetting = boolean | number | string[];
/** Fastify's `trustProxy` function form: is the `hop`-th address from our socket (0 = the peer) a proxy we trust? */
export type TrustProxyFn = (address: string, hop: number) => boolean;

// The names proxy-addr (Fastify's own parser) accepts, so a list written for Fastify means the same here.
const NAMED: Record<string, string[]> = {
  loopback: ['127.0.0.0/8', '::1/128'],
  linklocal: ['169.254.0.0/16', 'fe80::/10'],
  uniquelocal: ['10.0.0.0/8', '172.16.0.0/12', '192.168.0.0/16', 'fc00::/7'],
};

/**
 * Reads TRUST_PROXY: unset, empty or `false` is off; `true` trusts every hop; digits are a hop count; anything
 * else is a comma-separated list of addresses, CIDRs and the names loopback/linklocal/uniquelocal.
 * Answers an error message for an entry it cannot read.
 */
export function parseTrustProxy(raw: string | undefined): TrustProxySetting | { error: string } {
  const value = raw?.trim().toLowerCase() ?? '';
  if (value === '' || value === 'false') return false;
  if (value === 'true') return true;
  if (/^\d+$/.test(value)) {
    const hops = Number(value);
    return hops === 0 ? false : hops;
  }
  const entries = value.split(',').map((e) => e.trim());
  for (const entry of entries) {
    if (!(entry in NAMED) && !subnet(entry)) {
      return { error: `"${entry}" is not an address, a CIDR or one of loopback, linklocal, uniquelocal (or use true, false or a hop count)` };
    }
  }
  return entries;
}

function subnet(entry: string): { address: string; prefix: number; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, prefixText, extra] = entry.split('/');
  const version = isIP(address);
  if (!version || extra !== undefined) return undefined;
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** The function given to Fastify's `trustProxy` (and used to decide whether forwarded headers may name our origin). */
export function trustProxyFn(setting: TrustProxySetting): TrustProxyFn | false {
  if (setting === false) return false;
  if (setting === true) return () => true;
  if (typeof setting === 'number') return (_address, hop) => hop < setting;
  const trusted = new BlockList();
  for (const entry of setting.flatMap((e) => NAMED[e] ?? [e])) {
    const { address, prefix, family } = subnet(entry)!;
    trusted.addSubnet(address, prefix, family);
  }
  return (address) => {
    // A dual-stack socket reports IPv4 peers as ::ffff:a.b.c.d.
    const v4 = address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : undefined;
    if (v4) return trusted.check(v4, 'ipv4');
    const version = isIP(address);
    return version !== 0 && trusted.check(address, version === 4 ? 'ipv4' : 'ipv6');
  };
}
