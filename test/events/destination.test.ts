import { describe, expect, it } from 'vitest';
import { checkDestination, isForbiddenAddress } from '../../src/lib/destination.js';

describe('webhook destinations', () => {
  it('forbids loopback, private, link-local, metadata, CGNAT, multicast and unspecified addresses, v4 and v6', () => {
    for (const a of [
      '127.0.0.1',
      '127.255.255.254',
      '10.0.0.1',
      '172.16.0.1',
      '172.31.255.255',
      '192.168.0.1',
      '169.254.169.254',
      '100.64.0.1',
      '0.0.0.0',
      '224.0.0.1',
      '255.255.255.255',
      '::1',
      '::',
      'fe80::1',
      'fc00::1',
      'fd00:ec2::254',
      '::ffff:127.0.0.1',
      '::ffff:10.0.0.1',
      'not-an-ip',
    ])
      expect(isForbiddenAddress(a), a).toBe(true);
  });

  it('allows public addresses, at the edges of the private ranges', () => {
    for (const a of ['8.8.8.8', '172.15.255.255', '172.32.0.0', '11.0.0.0', '100.128.0.0', '169.255.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])
      expect(isForbiddenAddress(a), a).toBe(false);
  });

  it('checks the scheme and, unless allowed, every address a host name resolves to', async () => {
    const strict = { allowHttp: false, allowPrivate: false };
    await expect(checkDestination('http://8.8.8.8/x', strict)).rejects.toThrow('https');
    await expect(checkDestination('https://localhost/x', strict)).rejects.toThrow('loopback');
    await expect(checkDestination('https://no-such-host.invalid/x', strict)).rejects.toThrow('does not resolve');
    await expect(checkDestination('https://8.8.8.8/x', strict)).resolves.toBeInstanceOf(URL);
    await expect(checkDestination('http://localhost:9/x', { allowHttp: true, allowPrivate: true })).resolves.toBeInstanceOf(URL);
  });
});
