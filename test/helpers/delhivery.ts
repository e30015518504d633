import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** The shipment object of Delhivery's create.json `data` (the fields the fake reads named). */
interface DelhiveryShipment {
  order: string;
  name: string;
  pin: string;
  payment_mode: string;
  cod_amount: string;
  [field: string]: unknown;
}

interface CreateData {
  shipments: DelhiveryShipment[];
  pickup_location: { name: string };
}

/**
 * A local HTTP server playing Delhivery's B2C API as its documentation describes it: `Authorization: Token <key>`
 * on every call, the key of an account made with `account()` (401 otherwise; each account is one seller's, with
 * its own order ids and parcels); POST /api/cmu/create.json with the form `format=json&data=<JSON>` assigns a
 * waybill (a second create for the same order id is refused as a duplicate, as Delhivery does); GET
 * /api/v1/packages/json/?waybill=… or ?ref_ids=… answers `ShipmentData[0].Shipment.Status` (StatusType, Status),
 * which the test moves with `setStatus`. `failNext` answers the next create 500; `loseNext` creates the parcel
 * but answers 500 (an answer lost on the way).
 */
export async function fakeDelhivery() {
  const state = {
    creates: 0,
    tracks: 0,
    failNext: 0,
    loseNext: 0,
    auth: [] as (string | undefined)[],
    contentTypes: [] as (string | undefined)[],
    created: [] as CreateData[],
    parcels: new Map<string, { token: string; order: string; type: string; status: string }>(),
  };
  const tokens = new Set<string>();
  let accounts = 0;
  /** A new seller account: its API token. */
  const account = () => {
    const token = `dlv-${process.pid}-${++accounts}-${Math.random().toString(36).slice(2, 10)}`;
    tokens.add(token);
    return token;
  };
  let next = 84_100_000_000;
  const setStatus = (waybill: string, type: string, status: string) => {
    const p = state.parcels.get(waybill);
    if (!p) throw new Error(`no parcel ${waybill}`);
    Object.assign(p, { type, status });
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const send = (status: number, json: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' });
      res.end(JSON.stringify(json));
    };
    const url = new URL(req.url ?? '/', 'http://fake');
    state.auth.push(req.headers.authorization);
    const token = /^Token (.+)$/.exec(req.headers.authorization ?? '')?.[1];
    if (!token || !tokens.has(token)) return send(401, { detail: 'Authentication credentials were not provided.' });

    if (req.method === 'POST' && url.pathname === '/api/cmu/create.json') {
      state.creates++;
      state.contentTypes.push(req.headers['content-type']);
      if (state.failNext > 0) {
        state.failNext--;
        return send(500, { error: 'Internal Server Error' });
      }
      const form = new URLSearchParams(Buffer.concat(chunks).toString('utf8'));
      if (form.get('format') !== 'json' || !form.get('data')) return send(400, { rmk: 'format=json&data= is required' });
      const data = JSON.parse(form.get('data')!) as CreateData;
      state.created.push(data);
      const shipment = data.shipments[0];
      const existing = [...state.parcels.values()].find((p) => p.token === token && p.order === shipment.order);
      if (existing) {
        return send(200, {
          success: false,
          rmk: 'An internal Error has occurred, Please get in touch with client.support@delhivery.com',
          packages: [{ status: 'Fail', waybill: '', refnum: shipment.order, remarks: [`Duplicate order id`] }],
        });
      }
      const waybill = String(next++);
      state.parcels.set(waybill, { token, order: shipment.order, type: 'UD', status: 'Manifested' });
      if (state.loseNext > 0) {
        state.loseNext--;
        return send(502, { error: 'Bad Gateway' });
      }
      return send(200, {
        success: true,
        upload_wbn: `UPL${waybill}`,
        package_count: 1,
        packages: [{ status: 'Success', waybill, refnum: shipment.order, client: 'SHOP', remarks: [], cod_amount: Number(shipment.cod_amount) }],
      });
    }

    if (req.method === 'GET' && url.pathname === '/api/v1/packages/json/') {
      state.tracks++;
      const waybill = url.searchParams.get('waybill');
      const ref = url.searchParams.get('ref_ids');
      const found = [...state.parcels.entries()].find(([w, p]) => p.token === token && (waybill ? w === waybill : p.order === ref));
      if (!found) return send(200, { Error: 'No such waybill or Order Id found' });
      const [awb, p] = found;
      return send(200, {
        ShipmentData: [
          {
            Shipment: {
              AWB: awb,
              ReferenceNo: p.order,
              Status: { Status: p.status, StatusType: p.type, StatusLocation: 'Bengaluru_Hub (Karnataka)', StatusDateTime: new Date().toISOString() },
              Scans: [],
            },
          },
        ],
      });
    }
    send(404, { detail: 'Not found.' });
  };
  // Not awaited by node:http; a fault in the fake surfaces as an unhandled rejection, which vitest reports.
  const server: Server = createServer((req, res) => void handle(req, res));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { state, url, account, setStatus, close: () => new Promise<void>((r) => server.close(() => r())) };
}
