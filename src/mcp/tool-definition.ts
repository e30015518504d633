import { z } from 'zod';
import type { Tenant } from '../keys/keys.service.js';
import { settleInFull } from '../keys/key-check.js';
import type { Services } from '../services.js';
import { nullsAsAbsent } from '../contract/validation.js';

/** What a tool is and how every tool is defined (`define`); the tools themselves are in ./tools.ts and ./checkout-tools.ts. */

export interface ToolContext {
  services: Services;
  tenant: Tenant;
  /** scheme://host for signed photo links */
  origin: string;
}

export interface ToolAnnotations {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

interface ToolBase<S extends z.ZodObject> {
  name: string;
  title: string;
  /**
   * What the server's instructions say of this tool (`{name}` stands for its name), as part `step` of the sentence
   * that walks an agent through the tools; a tool without one is not mentioned there.
   */
  guide?: { step: number; text: string };
  /** A v1.0 tool kept for the agents built on it: documentation names it after the current ones. */
  older?: true;
  description: string;
  input: S;
  /** The REST response schema; the tool's structuredContent has exactly this shape. */
  output: z.ZodType;
  run(ctx: ToolContext, args: z.output<S>): Promise<Record<string, unknown>>;
}

/**
 * A tool is authenticated in full before it runs (one read of the key, unless the request already made it), except a
 * read-only tool with `keyInFirstStatement`: its service's first statement, read through a tenant reader
 * (src/keys/key-check.ts), checks a key this instance already knows, saving that round trip. A tool that writes cannot
 * opt in (`readOnlyHint: false`), so nothing is ever written before its key is settled.
 */
export type ToolDefinition<S extends z.ZodObject = z.ZodObject> = ToolBase<S> &
  (
    | { annotations: ToolAnnotations & { readOnlyHint: true }; keyInFirstStatement?: boolean }
    | { annotations: ToolAnnotations & { readOnlyHint: false }; keyInFirstStatement?: never }
  );

export const read = (title: string) => ({ title, readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false }) as const;

/**
 * Every tool's optional arguments take null as not given (agents on strict schemas send every property), and every
 * tool that does not check its key in its first statement (see ToolDefinition) has it checked in full before it runs.
 */
export const define = <S extends z.ZodObject>(tool: ToolDefinition<S>): ToolDefinition => {
  const inFirstStatement = tool.keyInFirstStatement === true;
  if (inFirstStatement && !tool.annotations.readOnlyHint) throw new Error(`tool ${tool.name} writes: it cannot check its key in its first statement`);
  const run: ToolBase<S>['run'] = inFirstStatement
    ? (ctx, args) => tool.run(ctx, args)
    : async (ctx, args) => {
        await settleInFull(ctx.tenant);
        return tool.run(ctx, args);
      };
  return { ...tool, run, input: nullsAsAbsent(tool.input) };
};
