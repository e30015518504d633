import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sql } from 'drizzle-orm';
import type { TestApp } from './app.js';
import { BASE, get, orderBody, post, shop, stockRow, uid } from './orders.js';

export { BASE, get, orderBody, post, shop, stockRow, uid };

/** A shop with one variant TEE-M (price 499.00, stock given) at the ship-from location. */
export async function teeShop(ctx: TestApp, stock = '10', company: { auto_courier_booking?: boolean } = {}) {
  return shop(ctx, [{ sku: 'TEE', name: 'Tee', variants: [{ sku: 'TEE-M', selling_price: '499.00', stock }] }], { company });
}

/** on_hand, reserved, open reservations, and `available` as the catalogue shows it. */
export async function stockView(ctx: TestApp, s: { companyId: string; headers: Record<string, string>; variantIds: Record<string, string> }, sku = 'TEE-M') {
  const row = await stockRow(ctx, s.companyId, s.variantIds[sku]);
  const detail = await get(ctx, s.headers, `/catalog/products/${sku}`);
  const variant = detail.body.data.variants.find((v: { sku: string }) => v.sku === sku);
  return { on_hand: row.on_hand, reserved: row.reserved, open: row.open, available: variant.available as string };
}

export async function jobsOf(ctx: TestApp, companyId: string) {
  return ctx.db.query<{ id: string; status: string; attempts: number; last_error: string | null; order_id: string }>(
    sql`SELECT id, status, attempts, last_error, order_id FROM jobs WHERE company_id = ${companyId} ORDER BY created_at`,
  );
}

/** A request body as the fake reads it: the adapter's JSON (the fields used here named), or null without one. */
interface CourierRequestBody {
  email?: string;
  password?: string;
  order_id?: string;
  shipment_id?: number;
  [field: string]: unknown;
}

async function readBody(req: IncomingMessage): Promise<CourierRequestBody | null> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  return text ? (JSON.parse(text) as CourierRequestBody) : null;
}

/**
 * A local HTTP server playing a Shiprocket-style courier. Counts calls; `failNext` makes the next create
 * answer 500; `delayMs` holds each create; orders are idempotent on our order number (as Shiprocket's
 * order id), so a repeated create after a lost answer returns the same shipment.
 */
export async function fakeCourier() {
  const state = {
    logins: 0,
    creates: 0,
    awbAssigns: 0,
    failNext: 0,
    delayMs: 0,
    orders: new Map<string, { shipment_id: number; awb: string }>(),
    bodies: [] as (CourierRequestBody | null)[],
  };
  let nextId = 1000;
  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const body = await readBody(req).catch(() => null);
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    if (req.url === '/v1/external/auth/login') {
      state.logins++;
      if (body?.email !== 'ops@shop.test' || body?.password !== 'pw-secret') return send(401, { message: 'Invalid email and password combination' });
      return send(200, { token: 'tok-123' });
    }
    if (req.headers.authorization !== 'Bearer tok-123') return send(401, { message: 'Unauthenticated' });
    if (req.url === '/v1/external/orders/create/adhoc') {
      state.creates++;
      state.bodies.push(body);
      if (state.delayMs) await new Promise((r) => setTimeout(r, state.delayMs));
      if (state.failNext > 0) {
        state.failNext--;
        return send(500, { message: 'Internal courier error' });
      }
      if (!body?.order_id) return send(422, { message: 'order_id is required' });
      let o = state.orders.get(body.order_id);
      if (!o) {
        o = { shipment_id: nextId++, awb: `AWB${nextId}` };
        state.orders.set(body.order_id, o);
      }
      return send(200, { order_id: o.shipment_id + 5000, shipment_id: o.shipment_id, status: 'NEW' });
    }
    if (req.url === '/v1/external/courier/assign/awb') {
      state.awbAssigns++;
      const o = [...state.orders.values()].find((x) => x.shipment_id === body?.shipment_id);
      if (!o) return send(422, { message: 'unknown shipment' });
      return send(200, { awb_assign_status: 1, response: { data: { awb_code: o.awb, courier_name: 'Delhivery Surface' } } });
    }
    send(404, { message: 'not found' });
  };
  // Not awaited by node:http; a fault in the fake surfaces as an unhandled rejection, which vitest reports.
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { state, url, close: () => new Promise<void>((r) => server.close(() => r())) };
}
