/** Browser origins as the Origin header carries them, and the ALLOWED_ORIGINS setting (src/http/origin.ts). */

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
