import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectRestShaped, openShop, TOOL_NAMES, toolCalls, type Shop } from './client-calls.js';

/**
 * The MCP Inspector's command line (`@modelcontextprotocol/inspector`, pinned in .ci/mcp-conformance.sh) against the
 * listening app: `tools/list --strict`, its tool-schema portability lint, finds nothing (no error, no
 * warning) in either protocol era, and `tools/call` succeeds for every tool with only the required arguments and
 * again with nulls, each answer the REST one. It wants Node 22.19+, so it is not a devDependency: CI installs it into
 * the cache folder and runs this file on Node 24 with INSPECTOR_DIR set. Without the folder the file is skipped.
 */
const PACKAGE_DIR = process.env.INSPECTOR_DIR ?? join(homedir(), '.cache/commerce-api/mcp-conformance/node_modules/@modelcontextprotocol/inspector');
// the package's `inspector` bin, as `npx @modelcontextprotocol/inspector` runs it
const BIN = join(PACKAGE_DIR, 'clients/launcher/build/index.js');
const available = process.env.INSPECTOR_DIR !== undefined || (existsSync(BIN) && Number(process.versions.node.split('.')[0]) >= 22);

let shop: Shop;
let home: string;

/** One run of the CLI on the current Node; exit status, stdout and stderr, whatever the status. */
async function inspector(...args: string[]): Promise<{ status: number; stdout: string; stderr: string }> {
  const base = ['--cli', shop.url, '--transport', 'http', '--header', `X-API-KEY: ${shop.key}`, '--format', 'json'];
  try {
    // HOME: the CLI keeps a catalog of servers there
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [BIN, ...base, ...args], { env: { ...process.env, HOME: home }, timeout: 60_000 });
    return { status: 0, stdout, stderr };
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string };
    return { status: e.code ?? -1, stdout: e.stdout ?? '', stderr: e.stderr ?? '' };
  }
}

describe.skipIf(!available)('the MCP Inspector CLI', () => {
  beforeAll(async () => {
    shop = await openShop();
    home = mkdtempSync(join(tmpdir(), 'inspector-home-'));
  });
  afterAll(async () => {
    await shop?.close();
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it.each(['legacy', 'modern'])('tools/list --strict (%s era): every tool, and no schema finding at all', async (era) => {
    const run = await inspector('--protocol-era', era, '--method', 'tools/list', '--strict');
    expect(run.status, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    const out = JSON.parse(run.stdout) as { result: { tools: { name: string }[] }; schemaFindings?: unknown };
    expect(out.schemaFindings).toBeUndefined();
    expect(out.result.tools.map((t) => t.name).sort()).toEqual(TOOL_NAMES);
  });

  it.each([...toolCalls('required', 'inspector'), ...toolCalls('nulls', 'inspector')].map((c) => [c.label, c] as const))(
    'tools/call %s',
    async (_label, call) => {
      const run = await inspector('--method', 'tools/call', '--tool-name', call.tool, '--tool-args-json', JSON.stringify(call.args));
      expect(run.status, `${run.stderr}${run.stdout}`).toBe(0);
      const { result } = JSON.parse(run.stdout) as { result: { isError?: boolean; content: { type: string; text: string }[] } };
      expect(result.isError, result.content[0]?.text).toBeFalsy();
      await expectRestShaped(shop, call, JSON.parse(result.content[0].text));
    },
  );
});
