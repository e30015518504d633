import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { checkDestination, guardedLookup, isForbiddenAddress } from '../../src/lib/destination.js';
import { sendWebhook } from '../../src/events/sender.js';

/**
 * Every block of IANA's IPv4 and IPv6 Special-Purpose Address Registries whose "Globally Reachable" is False or N/A
 * (registries as of 2025: RFC 6890 and its updates), plus the multicast blocks and the deprecated IPv6 forms
 * (site-local, IPv4-compatible). A webhook must reach none of their addresses.
 */
const NOT_GLOBAL_V4 = [
  '0.0.0.0/8', // "this network"
  '0.0.0.0/32', // "this host on this network"
  '10.0.0.0/8', // private-use
  '100.64.0.0/10', // shared address space (carrier-grade NAT)
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local (cloud metadata at 169.254.169.254)
  '172.16.0.0/12', // private-use
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.0.0/29', // IPv4 service continuity prefix
  '192.0.0.8/32', // IPv4 dummy address
  '192.0.0.170/32', // NAT64/DNS64 discovery
  '192.0.0.171/32', // NAT64/DNS64 discovery
  '192.0.2.0/24', // documentation (TEST-NET-1)
  '192.88.99.0/24', // deprecated 6to4 relay anycast
  '192.168.0.0/16', // private-use
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation (TEST-NET-2)
  '203.0.113.0/24', // documentation (TEST-NET-3)
  '240.0.0.0/4', // reserved
  '255.255.255.255/32', // limited broadcast
  '224.0.0.0/4', // multicast (IANA's multicast registry)
];
const NOT_GLOBAL_V6 = [
  '::1/128', // loopback
  '::/128', // unspecified
  '::ffff:0:0/96', // IPv4-mapped
  '64:ff9b:1::/48', // IPv4-IPv6 translation, local use
  '100::/64', // discard-only
  '100:0:0:1::/64', // dummy IPv6 prefix
  '2001::/23', // IETF protocol assignments
  '2001::/32', // Teredo
  '2001:2::/48', // benchmarking
  '2001:10::/28', // deprecated ORCHID
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4
  '3fff::/20', // documentation
  '5f00::/16', // segment routing (SRv6) SIDs
  'fc00::/7', // unique-local (AWS metadata at fd00:ec2::254)
  'fe80::/10', // link-local
  'ff00::/8', // multicast (IANA's multicast registry)
  'fec0::/10', // deprecated site-local
  '::/96', // deprecated IPv4-compatible
];

/** The first, a middle and the last address of a block, as text. */
function samples(cidr: string): string[] {
  const [net, bitsText] = cidr.split('/');
  const v6 = net.includes(':');
  const width = v6 ? 128 : 32;
  const bits = BigInt(width - Number(bitsText));
  const first = v6 ? v6ToBig(net) : net.split('.').reduce((n, o) => (n << 8n) | BigInt(o), 0n);
  const span = (1n << bits) - 1n;
  return [first, first + span / 2n, first + span].map((n) => (v6 ? bigToV6(n) : bigToV4(n)));
}
function v6ToBig(text: string): bigint {
  const [head, tail = ''] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail ? tail.split(':') : [];
  const groups = text.includes('::') ? [...h, ...Array(8 - h.length - t.length).fill('0'), ...t] : h;
  return groups.reduce((n, g) => (n << 16n) | BigInt(`0x${g}`), 0n);
}
const bigToV4 = (n: bigint) => [24n, 16n, 8n, 0n].map((s) => String((n >> s) & 255n)).join('.');
const bigToV6 = (n: bigint) => Array.from({ length: 8 }, (_, i) => ((n >> BigInt((7 - i) * 16)) & 0xffffn).toString(16)).join(':');

describe('webhook destinations', () => {
  it('forbids every address of every special-purpose block that is not globally reachable, v4 and v6', () => {
    const allowed = [...NOT_GLOBAL_V4, ...NOT_GLOBAL_V6].flatMap((cidr) =>
      samples(cidr)
        .filter((a) => !isForbiddenAddress(a))
        .map((a) => `${a} (${cidr})`),
    );
    expect(allowed).toEqual([]);
  });

  it('judges an IPv4 address carried in IPv6 by the IPv4 address, and refuses the deprecated carriers whatever they carry', () => {
    for (const a of [
      '::ffff:127.0.0.1', // IPv4-mapped
      '::ffff:10.0.0.1',
      '::ffff:7f00:1',
      '::127.0.0.1', // IPv4-compatible (deprecated), written both ways
      '::7f00:1',
      '::8.8.8.8',
      '64:ff9b::10.0.0.1', // NAT64 well-known prefix around a private address
      '64:ff9b::169.254.169.254',
      '64:ff9b::7f00:1',
      '64:ff9b:1::8.8.8.8', // NAT64 local-use, whatever it carries
      '2002:a00:1::1', // 6to4 around 10.0.0.1
      '2002:c0a8:101::1', // 6to4 around 192.168.1.1
      '2002:808:808::1', // 6to4 around a public address: 6to4 is deprecated (RFC 7526)
      '2001:0:4136:e378:8000:63bf:3fff:fdd2', // Teredo
      'fe80::1%eth0', // with a zone
      'not-an-ip',
      '',
    ])
      expect(isForbiddenAddress(a), a).toBe(true);
  });

  it('allows public addresses, also at the edges of the special blocks and behind IPv4-mapped or NAT64 IPv6', () => {
    for (const a of [
      '8.8.8.8',
      '1.1.1.1',
      '172.15.255.255',
      '172.32.0.0',
      '11.0.0.0',
      '100.128.0.0',
      '169.255.0.1',
      '192.88.100.1',
      '203.0.114.1',
      '2606:4700:4700::1111',
      '2001:4860:4860::8888',
      '2404:6800:4009:80b::200e',
      '::ffff:8.8.8.8',
      '64:ff9b::8.8.8.8',
    ])
      expect(isForbiddenAddress(a), a).toBe(false);
  });

  it('checks the scheme and, unless allowed, every address a host name resolves to', async () => {
    const strict = { allowHttp: false, allowPrivate: false };
    await expect(checkDestination('http://8.8.8.8/x', strict)).rejects.toThrow('https');
    await expect(checkDestination('https://localhost/x', strict)).rejects.toThrow('loopback');
    await expect(checkDestination('https://[::127.0.0.1]/x', strict)).rejects.toThrow('loopback');
    await expect(checkDestination('https://no-such-host.invalid/x', strict)).rejects.toThrow('does not resolve');
    await expect(checkDestination('https://8.8.8.8/x', strict)).resolves.toBeInstanceOf(URL);
    await expect(checkDestination('http://localhost:9/x', { allowHttp: true, allowPrivate: true })).resolves.toBeInstanceOf(URL);
  });

  it('refuses the same addresses at connection time: the guarded lookup, and a send to a literal address', async () => {
    const policy = { allowHttp: true, allowPrivate: false };
    const lookup = (host: string) =>
      new Promise<string>((resolve) => guardedLookup(policy)(host, { all: true }, (err, addrs) => resolve(err ? String(err.code) : JSON.stringify(addrs))));
    for (const host of ['::7f00:1', '64:ff9b:1::a00:1', '2002:a00:1::1', '2001::1', '192.88.99.1', '127.0.0.1'])
      expect(await lookup(host), host).toBe('EFORBIDDENADDR');
    expect(await lookup('8.8.8.8')).toContain('8.8.8.8');

    // A receiver on loopback, reached as [::127.0.0.1]: refused before any connection, so it sees nothing.
    let hits = 0;
    const server = createServer((_req, res) => {
      hits++;
      res.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    try {
      for (const host of ['[::127.0.0.1]', '[::ffff:127.0.0.1]', '127.0.0.1']) {
        const result = await sendWebhook(`http://${host}:${port}/hook`, '{}', {}, { policy, timeoutMs: 2000 });
        expect(result, host).toEqual({ status: null, error: 'refused: forbidden address' });
      }
      expect(await sendWebhook(`http://127.0.0.1:${port}/hook`, '{}', {}, { policy: { allowHttp: true, allowPrivate: true }, timeoutMs: 2000 })).toEqual({
        status: 200,
        error: null,
      });
      expect(hits).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
