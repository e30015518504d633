import { z } from 'zod';
import { requiredAs } from './orders.js';

/**
 * The company's UCP business as the admin sees it (REST under the base path, the CLI): settings and the hosts whose
 * /.well-known/ucp is the company's. The public UCP surface's own wire shapes are in `ucp-wire.ts`.
 */

/** How long a checkout holds its stock after its last change, in minutes (the ucp_settings CHECK). */
export const HOLD_MINUTES = { min: 1, max: 1440, default: 30 } as const;
const MAX_URL = 2048;
/** A host name: 253 characters at most (DNS), and a port. */
const MAX_HOST = 253 + 6;

const LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/**
 * A host as stored: lower-case, without a trailing dot, a DNS name of two labels or more whose last label is not all
 * digits (so no IP address), and an optional `:port`. Answers why not, in words, when it is none.
 */
export function normaliseUcpHost(raw: string): { host: string } | { error: string } {
  const value = raw.trim().toLowerCase();
  if (value.includes('/') || value.includes('@')) return { error: 'must be a host name such as shop.example.in, without https:// or a path' };
  const match = /^([^:]+?)\.?(?::(\d{1,5}))?$/.exec(value);
  if (!match) return { error: 'must be a host name such as shop.example.in, with an optional :port' };
  const [, name, port] = match;
  if (port !== undefined && (Number(port) < 1 || Number(port) > 65535 || port.startsWith('0'))) return { error: 'the port must be from 1 to 65535' };
  const labels = name.split('.');
  if (name.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l)) || /^\d+$/.test(labels.at(-1)!)) {
    return { error: 'must be a DNS name of two labels or more (letters, digits and "-", such as shop.example.in), not an address' };
  }
  return { host: port === undefined ? name : `${name}:${port}` };
}

/** The host's name without its port (`shop.example.in:8443` → `shop.example.in`). */
export const hostName = (host: string): string => host.replace(/:\d+$/, '');

const httpsUrl = z
  .string({ error: requiredAs('an https:// URL') })
  .trim()
  .max(MAX_URL, `must be at most ${MAX_URL} characters`)
  .refine((v) => {
    try {
      const url = new URL(v);
      return url.protocol === 'https:' && url.hostname !== '' && url.username === '' && url.password === '';
    } catch {
      return false;
    }
  }, 'must be an https:// URL such as https://shop.example.in/privacy');

export const ucpSettingsBody = z
  .object({
    enabled: z.boolean({ error: 'must be true or false' }).optional().describe('Whether agents can discover and buy from the company over UCP.'),
    hold_minutes: z
      .number({ error: `must be an integer from ${HOLD_MINUTES.min} to ${HOLD_MINUTES.max}` })
      .int(`must be an integer from ${HOLD_MINUTES.min} to ${HOLD_MINUTES.max}`)
      .min(HOLD_MINUTES.min, `must be an integer from ${HOLD_MINUTES.min} to ${HOLD_MINUTES.max}`)
      .max(HOLD_MINUTES.max, `must be an integer from ${HOLD_MINUTES.min} to ${HOLD_MINUTES.max}`)
      .optional()
      .describe(
        `How long a checkout holds its stock after its last change, in minutes (${HOLD_MINUTES.min}–${HOLD_MINUTES.max}; default ${HOLD_MINUTES.default}).`,
      ),
    privacy_url: httpsUrl.nullable().optional().describe("The company's privacy policy, linked from every checkout; null removes it."),
    terms_url: httpsUrl.nullable().optional().describe("The company's terms of service, linked from every checkout; null removes it."),
  })
  .describe('The settings to change; a field left out keeps its value.');
export type UcpSettingsInput = z.output<typeof ucpSettingsBody>;

export const ucpSettingsSchema = z.object({
  enabled: z.boolean(),
  hold_minutes: z.number().int(),
  privacy_url: z.string().nullable(),
  terms_url: z.string().nullable(),
  updated_at: z.string().nullable().describe('When the settings last changed; null while they are the defaults.'),
  discovery_url: z.string().describe("The company's UCP profile (answers 404 while the business is off)."),
});
export type UcpSettingsView = z.infer<typeof ucpSettingsSchema>;

const hostText = z
  .string({ error: requiredAs('a host name such as shop.example.in') })
  .max(MAX_HOST, `must be at most ${MAX_HOST} characters`)
  .transform((v, ctx) => {
    const out = normaliseUcpHost(v);
    if ('error' in out) {
      ctx.addIssue({ code: 'custom', message: out.error });
      return z.NEVER;
    }
    return out.host;
  });

export const ucpHostBody = z.object({
  host: hostText.describe("A host name of the company's own (`shop.example.in`, optionally `:port`) whose /.well-known/ucp is to be the company's."),
});
export const ucpHostParams = z.object({ host: hostText.describe('The registered host') });

export const ucpHostSchema = z.object({ host: z.string(), created_at: z.string() });
export type UcpHostView = z.infer<typeof ucpHostSchema>;
