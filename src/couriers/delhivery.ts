import { z } from 'zod';
import { requiredSetting } from './settings.js';
import type { Booking, BookingRequest, CourierAdapter, ShipmentStatus } from './types.js';
import { CourierError, defineCourier } from './types.js';

/**
 * Delhivery's B2C ("express") API, as its documentation (delhivery-express-api-doc.readme.io: order creation,
 * package lifecycle, prepaid and COD shipments) describes it: every call carries `Authorization: Token <key>`;
 * a shipment is created by POST /api/cmu/create.json with the form body `format=json&data=<JSON>` naming the
 * seller's registered pickup location, and Delhivery assigns the waybill; tracking is GET
 * /api/v1/packages/json/?waybill=… (or ?ref_ids=<order id>), whose status is a pair (StatusType, Status).
 */
export interface DelhiverySettings {
  baseUrl: string;
  token: string;
  /** The warehouse name registered with Delhivery, exactly (its create API refuses any other). */
  pickupLocation: string;
}

const PRODUCTION_URL = 'https://track.delhivery.com';

export const delhiveryTrackingUrl = (awb: string) => `https://www.delhivery.com/track/package/${encodeURIComponent(awb)}`;

/**
 * Delhivery's (StatusType, Status) to the spec's set. Forward parcels (ours) are UD until delivered (DL
 * Delivered); RT is a parcel on its way back (DL RTO once it is back); CN cancelled. PP and PU are reverse
 * pickups, which we never book: unknown here. A failed attempt shows as UD Pending again (the reason is in
 * Delhivery's NSL code, not read), so it is not told apart from a parcel waiting at the destination hub.
 */
export function mapDelhiveryStatus(statusType: string | null | undefined, status: string): ShipmentStatus | null {
  const type = (statusType ?? 'UD').trim().toUpperCase();
  const s = status.trim().toUpperCase().replace(/[_-]+/g, ' ');
  if (type === 'RT') return 'rto';
  if (type === 'CN') return 'cancelled';
  if (type === 'DL') return s === 'DELIVERED' ? 'delivered' : s === 'RTO' ? 'rto' : null;
  if (type !== 'UD') return null;
  if (s === 'MANIFESTED' || s === 'NOT PICKED' || s === 'SCHEDULED') return 'booked';
  if (s === 'IN TRANSIT' || s === 'PENDING') return 'in_transit';
  if (s === 'DISPATCHED') return 'out_for_delivery';
  if (s === 'DELIVERED') return 'delivered';
  if (s === 'RTO' || s === 'RETURNED') return 'rto';
  if (s === 'CANCELLED' || s === 'CANCELED') return 'cancelled';
  if (s === 'LOST') return 'failed';
  return null;
}

/** A callback's status text: `Status` alone (a forward parcel) or `StatusType Status` ("RT In Transit", "DL/RTO"). */
export function mapDelhiveryText(text: string): ShipmentStatus | null {
  const m = /^(UD|DL|RT|PP|PU|CN)[\s/|:-]+(.+)$/i.exec(text.trim());
  return m ? mapDelhiveryStatus(m[1], m[2]) : mapDelhiveryStatus(null, text);
}

// Delhivery's JSON is an external party's word: only the fields read are parsed; anything else counts as missing.
const createdPackage = z.object({
  status: z.string(),
  waybill: z.string().nullish().catch(undefined),
  refnum: z.string().nullish().catch(undefined),
  remarks: z
    .array(z.string())
    .or(z.string().transform((r) => [r]))
    .nullish()
    .catch(undefined),
});
const createAnswer = z.object({
  success: z.boolean().nullish().catch(undefined),
  upload_wbn: z.union([z.string(), z.number()]).nullish().catch(undefined),
  rmk: z.string().nullish().catch(undefined),
  packages: z.array(createdPackage).nullish().catch(undefined),
});
const trackAnswer = z.object({
  ShipmentData: z
    .tuple([
      z.object({
        Shipment: z.object({
          AWB: z.union([z.string(), z.number()]).transform(String),
          Status: z.object({ Status: z.string(), StatusType: z.string().nullish() }),
        }),
      }),
    ])
    .rest(z.unknown()),
});

const DUPLICATE = /duplicate/i;

/**
 * Delhivery's HTTP courier: create (Delhivery assigns the waybill; our order number is its order id, so a
 * repeated create after a lost answer is refused as a duplicate and the waybill is then found by that id) and
 * track by waybill. Calls are bounded by the caller's signal; errors are CourierErrors, retryable for timeouts,
 * network errors, 429 and 5xx, not for a refused token or a refused shipment.
 */
export function createDelhiveryAdapter(settings: DelhiverySettings): CourierAdapter {
  const base = settings.baseUrl.replace(/\/+$/, '');

  async function call(method: 'GET' | 'POST', path: string, signal: AbortSignal, form?: URLSearchParams): Promise<unknown> {
    const where = path.split('?')[0];
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method,
        headers: {
          accept: 'application/json',
          authorization: `Token ${settings.token}`,
          ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        },
        body: form?.toString(),
        signal,
      });
    } catch (err) {
      const name = (err as Error).name;
      const reason = name === 'TimeoutError' || name === 'AbortError' ? 'timed out or was stopped' : `network error (${(err as Error).message})`;
      throw new CourierError(`courier ${method} ${where} ${reason}`, true);
    }
    const text = await res.text().catch(() => '');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (!res.ok) {
      const retryable = res.status >= 500 || res.status === 429;
      throw new CourierError(`courier ${method} ${where} answered ${res.status}`, retryable, res.status);
    }
    if (body === null) throw new CourierError(`courier ${method} ${where} answered without JSON`, true, res.status);
    return body;
  }

  async function trackByQuery(query: string, signal: AbortSignal) {
    const tracked = trackAnswer.safeParse(await call('GET', `/api/v1/packages/json/?${query}`, signal));
    return tracked.success ? tracked.data.ShipmentData[0].Shipment : undefined;
  }

  return {
    name: 'delhivery',
    async book(req: BookingRequest, signal: AbortSignal): Promise<Booking> {
      const a = req.address;
      const data = {
        shipments: [
          {
            name: a.name ?? req.customerName,
            add: [a.line1, a.line2].filter(Boolean).join(', '),
            pin: a.pincode,
            city: a.city,
            state: a.state,
            country: 'India',
            phone: (a.phone ?? req.customerPhone ?? '').replace(/^\+91/, ''),
            order: req.orderNumber,
            order_date: req.orderDate.toISOString(),
            payment_mode: req.payment === 'cod' ? 'COD' : 'Prepaid',
            total_amount: req.amount,
            cod_amount: req.payment === 'cod' ? req.amount : '0',
            products_desc: req.items
              .map((i) => i.name)
              .join(', ')
              .slice(0, 200),
            quantity: String(req.items.length),
            weight: '500',
          },
        ],
        pickup_location: { name: settings.pickupLocation },
      };
      const form = new URLSearchParams({ format: 'json', data: JSON.stringify(data) });
      const created = createAnswer.safeParse(await call('POST', '/api/cmu/create.json', signal, form));
      if (!created.success) throw new CourierError('courier answered the shipment creation with something unreadable', true);
      const answer = created.data;
      const pkg = answer.packages?.[0];
      if (pkg && pkg.status.toLowerCase() === 'success' && pkg.waybill) {
        return {
          awb: pkg.waybill,
          courier: 'Delhivery',
          courierOrderId: pkg.refnum ?? req.orderNumber,
          courierShipmentId: answer.upload_wbn == null ? '' : String(answer.upload_wbn),
        };
      }
      const remarks = [...(pkg?.remarks ?? []), ...(answer.rmk ? [answer.rmk] : [])];
      if (remarks.some((r) => DUPLICATE.test(r))) {
        // Created by an earlier attempt whose answer was lost: the waybill is found by our order number.
        const found = await trackByQuery(`ref_ids=${encodeURIComponent(req.orderNumber)}`, signal);
        if (found) return { awb: found.AWB, courier: 'Delhivery', courierOrderId: req.orderNumber, courierShipmentId: '' };
        throw new CourierError('courier says the order exists but has no waybill for it yet', true);
      }
      const said = remarks.length ? `: ${remarks.join('; ').slice(0, 200)}` : '';
      throw new CourierError(`courier refused the shipment${said}`, false);
    },
    async track(awb: string, signal: AbortSignal): Promise<ShipmentStatus | null> {
      const shipment = await trackByQuery(`waybill=${encodeURIComponent(awb)}`, signal);
      return shipment ? mapDelhiveryStatus(shipment.Status.StatusType, shipment.Status.Status) : null;
    },
    trackingUrl: delhiveryTrackingUrl,
  };
}

/** Delhivery in the courier registry: the API token and the registered pickup location; the base URL defaults to production. */
export const delhiveryCourier = defineCourier({
  name: 'delhivery',
  configSchema: z.object({
    baseUrl: z
      .string()
      .regex(/^https?:\/\/[^\s]+$/, 'must be an http(s) URL')
      .default(PRODUCTION_URL),
    token: requiredSetting('delhivery'),
    pickupLocation: requiredSetting('delhivery'),
  }) satisfies z.ZodType<DelhiverySettings>,
  create: createDelhiveryAdapter,
  mapStatus: mapDelhiveryText,
  trackingUrl: delhiveryTrackingUrl,
});
