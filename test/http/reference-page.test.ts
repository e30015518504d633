import { existsSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { useTestApp } from '../helpers/app.js';
import { count, orderBody, shop, uid } from '../helpers/orders.js';

const CHROMIUM = '/usr/bin/chromium';
const BASE = '/api/v1/commerce';
/** The committed screenshot is refreshed on request; other runs write to a temp file. */
const SCREENSHOT = process.env.UPDATE_SCREENSHOTS ? join(import.meta.dirname, '../../docs/img/reference.png') : join(tmpdir(), 'commerce-api-reference.png');

// Locally the test needs the Debian chromium package; in CI (.ci/run installs it) a missing browser is a failure.
const run = existsSync(CHROMIUM) || Boolean(process.env.CI);

describe.skipIf(!run)('reference page in headless Chromium', () => {
  const ctx = useTestApp();
  let browser: Browser | undefined;
  afterAll(async () => {
    await browser?.close();
  });

  /** The service listening with its default settings (no PUBLIC_URL, no ALLOWED_ORIGINS), and a page of the browser on it, offline. */
  async function openPage() {
    if (!ctx.app.server.listening) await ctx.app.listen({ host: '127.0.0.1', port: 0 });
    const origin = `http://127.0.0.1:${(ctx.app.server.address() as AddressInfo).port}`;
    browser ??= await chromium.launch({
      executablePath: CHROMIUM,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    const page = await browser.newPage({ viewport: { width: 1280, height: 1400 } });
    const problems: string[] = [];
    const offsite: string[] = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') problems.push(msg.text());
    });
    page.on('pageerror', (err) => problems.push(err.message));
    // Offline: anything not served by us is refused and recorded.
    await page.route('**/*', (route) => {
      if (route.request().url().startsWith(origin)) return route.continue();
      offsite.push(route.request().url());
      return route.abort();
    });
    await page.goto(`${origin}${BASE}/docs`, { waitUntil: 'networkidle' });
    return { page, origin, problems, offsite };
  }

  /** Opens an operation, presses "Try it out" (with `body` in its request body), then "Execute"; answers the status code the page shows. */
  async function tryItOut(page: Page, method: 'get' | 'post', path: string, body?: unknown): Promise<string> {
    const operation = page
      .locator(`.opblock-${method}`)
      .filter({ has: page.locator('.opblock-summary-path', { hasText: new RegExp(`^${path.replace(/[{}/]/g, '\\$&')}$`) }) })
      .first();
    await operation.locator('.opblock-summary').click();
    await operation.getByRole('button', { name: 'Try it out' }).click();
    if (body !== undefined) await operation.locator('textarea.body-param__text').fill(JSON.stringify(body, null, 2));
    await operation.getByRole('button', { name: 'Execute' }).click();
    const status = operation.locator('.live-responses-table .response .response-col_status').first();
    await status.waitFor({ timeout: 30_000 });
    return (await status.innerText()).trim();
  }

  it('renders every endpoint from the document, offline, with no CSP violation', { timeout: 90_000 }, async () => {
    const { page, problems, offsite } = await openPage();
    await page.getByText('Catalogue, Orders and Customers API').first().waitFor({ timeout: 30_000 });
    for (const path of ['/catalog/products', '/catalog/products/{id}', '/catalog/categories', '/orders', '/orders/{reference}', '/customers', '/mcp']) {
      await expect(
        page
          .locator('.opblock-summary-path', { hasText: new RegExp(`^${path.replace(/[{}/]/g, '\\$&')}$`) })
          .first()
          .isVisible(),
        path,
      ).resolves.toBe(true);
    }
    await expect(page.getByText('Browse and search products').first().isVisible()).resolves.toBe(true);
    await expect(page.getByText('Authorize').first().isVisible()).resolves.toBe(true);

    mkdirSync(dirname(SCREENSHOT), { recursive: true });
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    expect(offsite).toEqual([]);
    expect(problems).toEqual([]);
  });

  it('"Try it out" works with a key: GET /catalog/products answers 200 and POST /orders 201, from the page’s own origin', { timeout: 90_000 }, async () => {
    const s = await shop(ctx, [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '299.00', stock: '10' }] }]);
    const { page, problems, offsite } = await openPage();
    await page.locator('.auth-wrapper button.authorize').click();
    const apiKey = page.locator('.modal-ux form').filter({ hasText: 'X-API-KEY' });
    await apiKey.locator('input').fill(s.key);
    await apiKey.getByRole('button', { name: 'Apply credentials' }).click();
    await page.locator('.modal-ux button.btn-done').first().click();

    expect(await tryItOut(page, 'get', '/catalog/products')).toBe('200');
    expect(await tryItOut(page, 'post', '/orders', orderBody({ external_reference: `docs-${uid()}` }))).toBe('201');
    expect(await count(ctx, 'orders', s.companyId)).toBe(1);
    expect(offsite).toEqual([]);
    expect(problems).toEqual([]);
  });
});
