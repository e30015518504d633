import type { ErrorBody } from './errors.js';

/**
 * The public UCP surface's wire shapes (the Universal Commerce Protocol, version 2026-01-11): the version this business
 * implements, the error body, and the UCP-Agent header. Unlike the REST API's `{error:{code,message}}`, every refusal
 * on the UCP surface is UCP's body, because UCP platforms (and the conformance suite) read `detail` and `messages`.
 */

/**
 * The version every answer is made and kept in (checkout.write stores its answers in it): the pinned conformance
 * suite's. Answers in a newer version are adapted from it at the output edge (checkout/ucp-output.ts).
 */
export const UCP_VERSION = '2026-01-11';

/** The UCP versions served, oldest first, each under its own endpoint (`/ucp/<slug>/<version>`); docs/ucp.md "Versions". */
export const UCP_VERSIONS = ['2026-01-11', '2026-04-08', '2026-08-25'] as const;
export type UcpVersion = (typeof UCP_VERSIONS)[number];
/** The newest version served: the one the business root's profile (`/.well-known/ucp`) declares. */
export const UCP_NEWEST: UcpVersion = UCP_VERSIONS[UCP_VERSIONS.length - 1];

export const isServedVersion = (v: string | undefined): v is UcpVersion => UCP_VERSIONS.includes(v as UcpVersion);

/** A UCP message of type error. 2026-01-11 closes `severity`; `recoverable` is the only one fitting a refusal. */
export interface UcpErrorMessage {
  type: 'error';
  code: string;
  content: string;
  severity: 'recoverable';
  path?: string;
}

export interface UcpErrorBody {
  detail: string;
  code: string;
  messages: UcpErrorMessage[];
}

export function ucpErrorBody(code: string, detail: string, path?: string): UcpErrorBody {
  const message: UcpErrorMessage = { type: 'error', code, content: detail, severity: 'recoverable' };
  if (path !== undefined) message.path = path;
  return { detail, code, messages: [message] };
}

/** A refusal only the UCP surface has (a code outside the REST error catalogue), with its HTTP status. */
export class UcpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    detail: string,
    readonly path?: string,
  ) {
    super(detail);
    this.name = 'UcpError';
  }

  /** The refusal in the API's error shape (the MCP tools' `{ error: { code, message, details } }`), UCP's code kept. */
  toErrorBody(): ErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.path ? { details: [{ path: this.path, message: this.message }] } : {}) } };
  }

  /** The refusal a write kept (checkout.write stores UCP's error body), read back. */
  static fromAnswer(answer: { status: number; body: string }): UcpError {
    const body = JSON.parse(answer.body) as UcpErrorBody;
    return new UcpError(answer.status, body.code, body.detail, body.messages[0]?.path);
  }
}

/** What a platform says of itself in `UCP-Agent`: its profile and the UCP version it speaks, when it says. */
export interface UcpAgent {
  /** The `profile` parameter as sent (the suite sends `"..."` in one test). */
  profile?: string;
  /** The profile when it is an http(s) URL, the only kind fetched. */
  profileUrl?: string;
  /** The `version` parameter when it is a date `YYYY-MM-DD`. */
  version?: string;
}

const PARAM = (name: string) => new RegExp(`(?:^|[;,])\\s*${name}\\s*=\\s*(?:"([^"]*)"|([^;,\\s]+))`, 'i');
const PROFILE = PARAM('profile');
const VERSION = PARAM('version');
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * Reads `UCP-Agent` leniently (a structured-field dictionary in the spec, `profile="<url>"; version="<date>"` as
 * platforms send it): parameters in any order, quoted or not, separated by `;` or `,`. Anything unreadable is left
 * out rather than refused: a platform without a readable profile is served without its configuration.
 */
export function parseUcpAgent(header: string | string[] | undefined): UcpAgent {
  const value = Array.isArray(header) ? header.join(', ') : header;
  if (!value) return {};
  const out: UcpAgent = {};
  const profile = PROFILE.exec(value);
  const profileText = profile ? (profile[1] ?? profile[2]).trim() : '';
  if (profileText) {
    out.profile = profileText;
    try {
      const url = new URL(profileText);
      if (url.protocol === 'https:' || url.protocol === 'http:') out.profileUrl = url.href;
    } catch {
      // not a URL: kept as sent, never fetched
    }
  }
  const version = VERSION.exec(value);
  const versionText = version ? (version[1] ?? version[2]).trim() : '';
  if (DATE.test(versionText)) out.version = versionText;
  return out;
}

/**
 * Whether this business can serve a platform speaking `version`: 2026-01-11 says a business MUST process a request
 * from a platform whose version is not newer than its own. Dates compare as text.
 */
export function versionSupported(version: string | undefined, ours: string = UCP_VERSION): boolean {
  return version === undefined || version <= ours;
}

/** A request's version negotiated, or the refusal its endpoint's version prescribes. */
export type Negotiated = { version: UcpVersion } | { refusal: UcpError };

/**
 * The version a request on `endpoint`'s endpoint is processed in, from the version the platform declares (UCP-Agent's
 * `version`), by the rule of the endpoint's own version:
 * - 2026-01-11: a platform not newer than 2026-01-11 is processed (in 2026-01-11); a newer one is refused, 400
 *   `version_unsupported` (2026-01-11 names no status; the pinned suite expects 400).
 * - 2026-04-08 and 2026-08-25 (the same rule, the same table): a platform declaring the business's version or a key
 *   of `supported_versions` (a version we serve, not newer than the endpoint's) is processed in that version; any
 *   other is refused, 422 `version_unsupported`.
 * A platform that declares no version is processed in the endpoint's version.
 */
export function negotiateVersion(endpoint: UcpVersion, declared: string | undefined): Negotiated {
  if (endpoint === '2026-01-11') {
    if (versionSupported(declared, endpoint)) return { version: endpoint };
    return { refusal: new UcpError(400, 'version_unsupported', `Version ${declared} is not supported. This business implements version ${endpoint}.`) };
  }
  if (declared === undefined) return { version: endpoint };
  if (isServedVersion(declared) && declared <= endpoint) return { version: declared };
  const versions = UCP_VERSIONS.filter((v) => v <= endpoint);
  const served = versions.length > 1 ? `${versions.slice(0, -1).join(', ')} and ${versions[versions.length - 1]}` : versions[0];
  return { refusal: new UcpError(422, 'version_unsupported', `Protocol version ${declared} is not supported. This business supports versions ${served}.`) };
}
