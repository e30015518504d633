import { z } from 'zod';
import type { CourierConfigOf, CourierSettingsInput } from './types.js';

/** A setting a courier cannot work without; absent or empty, it is reported as required for that courier. */
export const requiredSetting = (courier: string) => z.string({ error: `required for the ${courier} adapter` }).min(1, `required for the ${courier} adapter`);

/** The courier's API address: an http(s) URL. */
export const apiUrl = (courier: string) => requiredSetting(courier).regex(/^https?:\/\/[^\s]+$/, 'must be an http(s) URL');

const given = (v: string | null | undefined) => (v === null || v === undefined || v === '' ? undefined : v);

/** The stored columns as a courier's configSchema reads them: the one secret column answers to `password` and `token`. */
export function storedSettings(config: Omit<CourierConfigOf, 'adapter'> | null | undefined): CourierSettingsInput {
  if (!config) return {};
  const secret = given(config.apiPassword);
  return { baseUrl: given(config.baseUrl), email: given(config.apiEmail), password: secret, token: secret, pickupLocation: given(config.pickupLocation) };
}

/** What staff gave (null or absent: keep what is stored) over what is stored. */
export function mergeSettings(stored: CourierSettingsInput, input: { [K in keyof CourierSettingsInput]?: string | null }): CourierSettingsInput {
  const secret = given(input.password) ?? given(input.token);
  const next: CourierSettingsInput = { ...stored };
  next.baseUrl = given(input.baseUrl) ?? next.baseUrl;
  next.email = given(input.email) ?? next.email;
  if (secret) next.password = next.token = secret;
  next.pickupLocation = given(input.pickupLocation) ?? next.pickupLocation;
  return next;
}

/**
 * A configSchema's complaints as field errors: what is missing first (a URL's form is checked once every
 * required setting is there), each under the name staff typed it by.
 */
export function settingsIssues(issues: readonly z.core.$ZodIssue[]): { path: string; message: string }[] {
  const missing = issues.filter((i) => i.code === 'invalid_type' || (i.code === 'too_small' && i.minimum === 1));
  return (missing.length ? missing : issues).map((i) => ({ path: i.path.map(String).join('.') || '(settings)', message: i.message }));
}

const LABELS: Record<string, string> = { baseUrl: 'base URL', email: 'email', password: 'password', token: 'API token', pickupLocation: 'pickup location' };

/** "base URL, email and password": the settings a parse found missing or wrong, for an error message. */
export function settingsNamed(issues: readonly z.core.$ZodIssue[]): string {
  const names = [...new Set(issues.map((i) => LABELS[String(i.path[0])] ?? String(i.path[0])))];
  return names.length > 1 ? `${names.slice(0, -1).join(', ')} and ${names.at(-1)}` : (names[0] ?? 'settings');
}
