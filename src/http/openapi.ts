import swagger from '@fastify/swagger';
import swaggerUi from '@fastify/swagger-ui';
import type { FastifyInstance } from 'fastify';
import { createJsonSchemaTransform, jsonSchemaTransformObject } from 'fastify-type-provider-zod';
import type { Config } from '../config.js';
import { OPERATIONS, mcpOperationSchema, mcpPostDoc, type OperationDoc, type ToolDoc } from './openapi.operations.js';
import { isUcpRoute, ucpRouteSchema, UCP_TAG_DOC, withUcpServers } from './openapi.ucp.js';

const DOC_INFO_DESCRIPTION = [
  "Browse a company's catalogue with live stock, place confirmed orders (cash on delivery or prepaid) that reserve stock,",
  'look up orders and find customers by phone. The same capabilities are MCP tools on `POST /mcp`.',
  '',
  "Every request carries one company's API key, as `X-API-KEY: <key>` or `Authorization: Bearer <key>`; the key alone decides",
  'the company. Money and quantities are decimal strings; currency is INR, prices include GST. Successful bodies wrap the result',
  'in `data`; errors are `{ "error": { "code", "message", "details"? } }` and callers branch on `code`.',
  'A request carrying an `Origin` header (a browser page) is refused with 403 `forbidden` unless that origin is allowed',
  '(`ALLOWED_ORIGINS`); servers and agents send no `Origin` and are not affected.',
  '',
  'Retry on network errors, timeouts, 429 and 503 (after `Retry-After`) and other 5xx with exponential backoff; a 503 means the',
  'service refused the request under overload before doing anything. A retried order with the same',
  '`external_reference` never creates a second order.',
  '',
  'The operations tagged UCP are the public Universal Commerce Protocol surface agents buy through (docs/ucp.md): no key,',
  "absolute paths on this server's root, and UCP's error body `{ detail, code, messages }`.",
].join('\n');

/**
 * The library's default override drops union branches that are still empty placeholders when it runs; for a
 * described query integer or boolean (limit, offset, in_stock) that is the string branch. No dates and no
 * undefined are declared, and the document is OpenAPI 3.1, so its other adjustments are not needed.
 */
const jsonSchemaTransform = createJsonSchemaTransform({ zodToJsonConfig: { override: () => {} } });

/**
 * OpenAPI 3.1 from the route schemas (@fastify/swagger + fastify-type-provider-zod), served at
 * `{base}/openapi.json`, and the interactive reference at `{base}/docs` (Swagger UI from npm, no CDN).
 * Register before any route: @fastify/swagger only sees routes added after it. `tools` are the MCP tool definitions,
 * which the MCP endpoint's description lists.
 */
export async function registerOpenApi(app: FastifyInstance, config: Pick<Config, 'BASE_PATH'>, tools: readonly ToolDoc[]): Promise<void> {
  const base = config.BASE_PATH;
  const operations: Record<string, OperationDoc> = { ...OPERATIONS, 'POST /mcp': mcpPostDoc(tools) };
  await app.register(swagger, {
    openapi: {
      openapi: '3.1.0',
      info: { title: 'Catalogue, Orders and Customers API', version: '1.3.0', description: DOC_INFO_DESCRIPTION },
      // Paths in the document are relative to the base path, as in the spec.
      servers: [{ url: base, description: 'this server' }],
      tags: [
        { name: 'Catalogue', description: 'Products with variants, prices and live stock; categories and brands' },
        { name: 'Orders', description: 'Create and confirm orders; look them up with shipment and invoice' },
        { name: 'Customers', description: "Find a customer by phone; record a customer's messaging opt-out" },
        { name: 'Webhooks', description: 'Signed event deliveries (order, shipment, invoice, payment, opt-out); keys with the webhooks permission' },
        { name: 'UCP business', description: 'Agents buying over the Universal Commerce Protocol: settings and hosts; keys with the ucp permission' },
        { name: 'Cash on delivery', description: 'Whether COD is available for an order; the COD settings and rules (keys with the cod permission)' },
        { name: 'Audit trail', description: 'Who did what and when: administrative and data-rights actions (keys with the audit permission)' },
        { name: 'Privacy', description: "Customers' data under the DPDP Act: the privacy notice link and retention (keys with the privacy permission)" },
        { name: 'Agent tools (MCP)', description: 'Model Context Protocol server: the same capabilities as tools for AI agents' },
        UCP_TAG_DOC,
      ],
      components: {
        securitySchemes: {
          apiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY', description: "The company's API key" },
          bearer: { type: 'http', scheme: 'bearer', description: 'The same API key as `Authorization: Bearer <key>`' },
        },
      },
      // Either header works; every documented route of the API requires one (the public UCP operations say `security: []`).
      security: [{ apiKey: [] }, { bearer: [] }],
    },
    transform: (input) => {
      const { url, route } = input;
      const method = Array.isArray(route.method) ? route.method[0] : route.method;
      // The public UCP surface (no key, absolute paths): src/http/openapi.ucp.ts documents it, route by route.
      if (isUcpRoute(url)) {
        const out = jsonSchemaTransform({ ...input, schema: ucpRouteSchema(method, url) }) as { schema: Record<string, unknown> | undefined; url: string };
        return { url: out.url, schema: out.schema ?? { hide: true } };
      }
      const relative = url.startsWith(`${base}/`) ? url.slice(base.length) : undefined;
      // Ops routes (/healthz, /readyz, /media) and the docs themselves are not part of the API.
      if (relative === undefined || relative === '/openapi.json' || relative === '/docs' || relative.startsWith('/docs/')) {
        return { schema: { hide: true }, url };
      }
      // Every other route under the base path is documented; OPERATIONS adds its words (a test asks for them).
      const doc: OperationDoc | undefined = operations[`${method} ${relative}`];
      const schema = relative === '/mcp' ? { ...mcpOperationSchema(method), ...input.schema } : input.schema;
      const out = jsonSchemaTransform({ ...input, schema }) as { schema: Record<string, unknown> | undefined; url: string };
      return { url: out.url, schema: doc ? applyDoc(out.schema ?? {}, doc) : (out.schema ?? {}) };
    },
    transformObject: (input) => {
      const document = jsonSchemaTransformObject(input) as { paths?: Record<string, unknown> };
      withUcpServers(document);
      return document as ReturnType<typeof jsonSchemaTransformObject>;
    },
  });

  await app.register(swaggerUi, {
    routePrefix: `${base}/docs`,
    uiConfig: { docExpansion: 'list', deepLinking: true, defaultModelsExpandDepth: 0, persistAuthorization: false, tryItOutEnabled: false },
    theme: { title: 'Catalogue, Orders and Customers API — reference' },
    // Swagger UI loads only its own files from this server; this CSP applies to the docs routes only
    // (the plugin's hook is encapsulated), everything else keeps helmet's default.
    staticCSP: {
      'default-src': ["'self'"],
      'base-uri': ["'self'"],
      'connect-src': ["'self'"],
      'font-src': ["'self'", 'data:'],
      'form-action': ["'self'"],
      'frame-ancestors': ["'self'"],
      'img-src': ["'self'", 'data:'],
      'object-src': ["'none'"],
      'script-src': ["'self'"],
      'script-src-attr': ["'none'"],
      'style-src': ["'self'", "'unsafe-inline'"],
    },
  });

  app.get(`${base}/openapi.json`, { schema: { hide: true } }, async () => app.swagger());
}

/** Adds summary, description, tags and examples to a transformed route schema (parameter descriptions come from the contract schemas). */
function applyDoc(schema: Record<string, unknown>, doc: OperationDoc): Record<string, unknown> {
  const out: Record<string, unknown> = { ...schema, summary: doc.summary, description: doc.description, tags: [doc.tag] };
  if (doc.operationId) out.operationId = doc.operationId;
  if (doc.requestExample && out.body) out.body = { ...out.body, examples: [doc.requestExample] };
  const responses = out.response as Record<string, Record<string, unknown>> | undefined;
  for (const [status, text] of Object.entries(doc.responses ?? {})) {
    if (responses?.[status]) responses[status] = { ...responses[status], description: text };
  }
  for (const [status, example] of Object.entries(doc.responseExamples ?? {})) {
    if (responses?.[status]) responses[status] = { ...responses[status], examples: [example] };
  }
  return out;
}
