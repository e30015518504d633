import { isIP } from 'node:net';

/** Browser origins as the Origin header carries them, the ALLOWED_ORIGINS setting, and the names a local server answers to (src/http/origin.ts). */

/** `https://Shop.Example:443/x` → `https://shop.example`: the form browsers send, or undefined when it is no origin. */
export function normaliseOrigin(value: string): string | undefined {
  try {
    const url = new URL(value.trim());
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
    return url.origin;
  } catch {
    return undefined;
  }
}

/** ALLOWED_ORIGINS as written: comma-separated origins; a value that is no http(s) origin is a configuration error. */
export function parseAllowedOrigins(raw: string | undefined): string[] | { error: string } {
  const out: string[] = [];
  for (const part of (raw ?? '').split(',')) {
    const value = part.trim();
    if (!value) continue;
    const origin = normaliseOrigin(value);
    if (!origin || origin === 'null') return { error: `"${value}" is not an http(s) origin such as https://shop.example.com` };
    out.push(origin);
  }
  return out;
}

/** The names a browser and the MCP spec know this machine by (with any port), as `URL.hostname` writes them. */
const LOOPBACK_NAMES: ReadonlySet<string> = new Set(['localhost', '127.0.0.1', '[::1]']);

export const isLoopbackName = (hostname: string): boolean => LOOPBACK_NAMES.has(hostname);

/** Whether HOST, the address the service listens on, is this machine's loopback only: the service is then local. */
export function isLoopbackBind(host: string): boolean {
  const address = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1');
  return address === 'localhost' || address === '::1' || (isIP(address) === 4 && address.startsWith('127.'));
}

// A name or an IPv6 literal in brackets, and a port: nothing a URL parser would read as a user, a path or a query.
const HOST_HEADER = /^(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/** The host name a Host header names (`LocalHost:3000` → `localhost`, `[::1]:80` → `[::1]`), or undefined when malformed. */
export function hostNameOf(host: string | undefined): string | undefined {
  if (host === undefined || !HOST_HEADER.test(host)) return undefined;
  try {
    return new URL(`http://${host}`).hostname;
  } catch {
    return undefined;
  }
}
