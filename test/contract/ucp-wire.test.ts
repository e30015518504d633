import { describe, expect, it } from 'vitest';
import { normaliseUcpHost } from '../../src/contract/ucp.js';
import { negotiateVersion, parseUcpAgent, versionSupported } from '../../src/contract/ucp-wire.js';

describe('UCP-Agent header', () => {
  it('reads the profile URL and the version, quoted or not, in any order', () => {
    expect(parseUcpAgent('profile="http://localhost:8285/profiles/shopping-agent.json"')).toEqual({
      profile: 'http://localhost:8285/profiles/shopping-agent.json',
      profileUrl: 'http://localhost:8285/profiles/shopping-agent.json',
    });
    expect(parseUcpAgent('version="2026-01-11"; profile="https://agent.example/p.json"')).toEqual({
      profile: 'https://agent.example/p.json',
      profileUrl: 'https://agent.example/p.json',
      version: '2026-01-11',
    });
    expect(parseUcpAgent('profile=https://agent.example/p.json, version=2099-01-01')).toMatchObject({ version: '2099-01-01' });
    expect(parseUcpAgent('Profile = "https://agent.example/p.json" ; Version = "2026-01-11"')).toMatchObject({ version: '2026-01-11' });
  });

  it('keeps a profile that is no URL without a URL, and ignores what it cannot read', () => {
    expect(parseUcpAgent('profile="..."; version="2099-01-01"')).toEqual({ profile: '...', version: '2099-01-01' });
    expect(parseUcpAgent('profile="ftp://agent.example/p"')).toEqual({ profile: 'ftp://agent.example/p' });
    expect(parseUcpAgent('version="next"')).toEqual({});
    expect(parseUcpAgent('xprofile="https://a.example/p"; subversion="2099-01-01"')).toEqual({});
    expect(parseUcpAgent(undefined)).toEqual({});
    expect(parseUcpAgent('')).toEqual({});
    expect(parseUcpAgent(['profile="https://a.example/p"', 'version="2026-01-11"'])).toMatchObject({
      profileUrl: 'https://a.example/p',
      version: '2026-01-11',
    });
  });

  it('supports a platform of our version or older, never a newer one', () => {
    expect(versionSupported(undefined)).toBe(true);
    expect(versionSupported('2026-01-11')).toBe(true);
    expect(versionSupported('2025-12-01')).toBe(true);
    expect(versionSupported('2026-01-12')).toBe(false);
    expect(versionSupported('2099-01-01')).toBe(false);
  });

  it('negotiates by the endpoint version’s rule: 2026-01-11 serves not-newer (else 400), 2026-04-08 the versions it lists (else 422)', () => {
    const outcome = (endpoint: '2026-01-11' | '2026-04-08', declared?: string) => {
      const n = negotiateVersion(endpoint, declared);
      return 'version' in n ? n.version : n.refusal.status;
    };
    expect(outcome('2026-01-11')).toBe('2026-01-11');
    expect(outcome('2026-01-11', '2025-06-01')).toBe('2026-01-11');
    expect(outcome('2026-01-11', '2026-01-23')).toBe(400);
    expect(outcome('2026-01-11', '2026-04-08')).toBe(400);
    expect(outcome('2026-04-08')).toBe('2026-04-08');
    expect(outcome('2026-04-08', '2026-04-08')).toBe('2026-04-08');
    expect(outcome('2026-04-08', '2026-01-11')).toBe('2026-01-11');
    for (const v of ['2025-06-01', '2026-01-23', '2026-08-25', '2099-01-01']) expect(outcome('2026-04-08', v), v).toBe(422);
  });
});

describe('UCP host names', () => {
  it('lower-cases, drops a trailing dot and keeps a port', () => {
    expect(normaliseUcpHost('Shop.Example.IN')).toEqual({ host: 'shop.example.in' });
    expect(normaliseUcpHost(' shop.example.in. ')).toEqual({ host: 'shop.example.in' });
    expect(normaliseUcpHost('shop.example.in:8443')).toEqual({ host: 'shop.example.in:8443' });
    expect(normaliseUcpHost('a-b.c1.example')).toEqual({ host: 'a-b.c1.example' });
  });

  it('refuses what is no DNS name of two labels: URLs, addresses, bad labels and ports', () => {
    for (const bad of [
      'https://shop.example.in',
      'shop.example.in/path',
      'user@shop.example.in',
      'localhost',
      '127.0.0.1',
      '[::1]',
      '-shop.example.in',
      'shop-.example.in',
      'sh_op.example.in',
      'shop..example.in',
      `${'a'.repeat(64)}.example.in`,
      'shop.example.in:0',
      'shop.example.in:65536',
      'shop.example.in:080',
      'shop.example.in:',
      '',
    ]) {
      expect(normaliseUcpHost(bad), bad).toHaveProperty('error');
    }
  });
});
