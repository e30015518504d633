import { createHash } from 'node:crypto';
import { z } from 'zod';
import { apiUrl, requiredSetting } from './settings.js';
import type { Booking, BookingRequest, CourierAdapter, ShipmentStatus } from './types.js';
import { CourierError, defineCourier } from './types.js';

export interface ShiprocketSettings {
  baseUrl: string;
  email: string;
  password: string;
  pickupLocation: string;
}

const TOKEN_TTL_MS = 24 * 60 * 60 * 1000; // Shiprocket tokens live 10 days; we log in again daily.
const tokens = new Map<string, { token: string; expires: number }>();

export const shiprocketTrackingUrl = (awb: string) => `https://shiprocket.co/tracking/${encodeURIComponent(awb)}`;

/** Shiprocket's free-text shipment states to the spec's set. */
export function mapShiprocketStatus(text: string): ShipmentStatus | null {
  const s = text.trim().toUpperCase().replace(/[_-]+/g, ' ');
  if (s.startsWith('RTO')) return 'rto';
  if (s === 'DELIVERED') return 'delivered';
  if (s === 'OUT FOR DELIVERY') return 'out_for_delivery';
  if (s === 'IN TRANSIT' || s === 'REACHED AT DESTINATION HUB' || s === 'SHIPPED') return 'in_transit';
  if (s === 'PICKED UP') return 'picked_up';
  if (s === 'CANCELED' || s === 'CANCELLED') return 'cancelled';
  if (s === 'UNDELIVERED' || s === 'DELIVERY FAILED' || s === 'LOST' || s === 'DAMAGED') return 'failed';
  if (s === 'AWB ASSIGNED' || s === 'PICKUP SCHEDULED' || s === 'PICKUP GENERATED' || s === 'MANIFEST GENERATED' || s === 'BOOKED') return 'booked';
  if (s === 'NEW' || s === 'PENDING') return 'pending';
  return null;
}

// Shiprocket's JSON is an external party's word: each answer is parsed against the few fields we read, and
// anything else is treated as if the field were missing. Ids come as numbers or strings.
const idSchema = z.union([z.string(), z.number()]);
const errorAnswer = z.object({ message: z.string() });
const loginAnswer = z.object({ token: z.string().min(1) });
const createAnswer = z.object({
  shipment_id: idSchema,
  // Optional and informative only: an odd value must not fail a booking that has its shipment id.
  order_id: idSchema.nullish().catch(undefined),
});
const assignAnswer = z.object({
  awb_assign_status: z.literal(1),
  response: z.object({
    data: z.object({ awb_code: z.string().min(1), courier_name: idSchema.nullish().catch(undefined) }),
  }),
});
const trackAnswer = z.object({
  tracking_data: z.object({
    // Only the newest entry (the first) is read; later entries are not looked at.
    shipment_track: z.tuple([z.object({ current_status: z.string() })]).rest(z.unknown()),
  }),
});

/**
 * Shiprocket-style HTTP courier: token login, create order (adhoc, with our order number as its order id so
 * a repeated create after a lost answer finds the same order), assign AWB, track. Every call is bounded by
 * the caller's signal (AbortSignal.timeout) and errors are mapped to CourierError (retryable or not).
 */
export function createShiprocketAdapter(settings: ShiprocketSettings): CourierAdapter {
  const base = settings.baseUrl.replace(/\/+$/, '');
  // New credentials mean a new login: the key holds a hash of the password, never the password.
  const cacheKey = `${base}|${settings.email}|${createHash('sha256').update(settings.password).digest('hex')}`;

  async function call(path: string, init: { method: string; body?: unknown; token?: string }, signal: AbortSignal): Promise<unknown> {
    let res: Response;
    try {
      res = await fetch(`${base}${path}`, {
        method: init.method,
        headers: {
          accept: 'application/json',
          ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
          ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal,
      });
    } catch (err) {
      const name = (err as Error).name;
      const reason = name === 'TimeoutError' || name === 'AbortError' ? 'timed out or was stopped' : `network error (${(err as Error).message})`;
      throw new CourierError(`courier ${init.method} ${path} ${reason}`, true);
    }
    const text = await res.text().catch(() => '');
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : null;
    } catch {
      body = null;
    }
    if (!res.ok) {
      const error = errorAnswer.safeParse(body);
      const said = error.success ? `: ${error.data.message.slice(0, 200)}` : '';
      const retryable = res.status >= 500 || res.status === 429;
      throw new CourierError(`courier ${init.method} ${path} answered ${res.status}${said}`, retryable, res.status);
    }
    if (body === null) throw new CourierError(`courier ${init.method} ${path} answered without JSON`, true, res.status);
    return body;
  }

  async function token(signal: AbortSignal, fresh = false): Promise<string> {
    const cached = tokens.get(cacheKey);
    if (!fresh && cached && cached.expires > Date.now()) return cached.token;
    const body = await call('/v1/external/auth/login', { method: 'POST', body: { email: settings.email, password: settings.password } }, signal);
    const login = loginAnswer.safeParse(body);
    if (!login.success) throw new CourierError('courier login answered without a token', false);
    tokens.set(cacheKey, { token: login.data.token, expires: Date.now() + TOKEN_TTL_MS });
    return login.data.token;
  }

  /** One authenticated call; a 401 (token expired early) logs in again once. */
  async function authed(path: string, init: { method: string; body?: unknown }, signal: AbortSignal): Promise<unknown> {
    try {
      return await call(path, { ...init, token: await token(signal) }, signal);
    } catch (err) {
      if (!(err instanceof CourierError) || err.status !== 401) throw err;
      return call(path, { ...init, token: await token(signal, true) }, signal);
    }
  }

  return {
    name: 'shiprocket',
    async book(req: BookingRequest, signal: AbortSignal): Promise<Booking> {
      const a = req.address;
      const createBody = await authed(
        '/v1/external/orders/create/adhoc',
        {
          method: 'POST',
          body: {
            order_id: req.orderNumber,
            order_date: req.orderDate.toISOString().slice(0, 16).replace('T', ' '),
            pickup_location: settings.pickupLocation,
            billing_customer_name: a.name ?? req.customerName,
            billing_last_name: '',
            billing_address: a.line1,
            billing_address_2: a.line2 ?? '',
            billing_city: a.city,
            billing_pincode: a.pincode,
            billing_state: a.state,
            billing_country: 'India',
            billing_phone: (a.phone ?? req.customerPhone ?? '').replace(/^\+91/, ''),
            shipping_is_billing: true,
            order_items: req.items.map((i) => ({ name: i.name, sku: i.sku, units: i.quantity, selling_price: i.unitPrice })),
            payment_method: req.payment === 'cod' ? 'COD' : 'Prepaid',
            sub_total: req.amount,
            length: 10,
            breadth: 10,
            height: 10,
            weight: 0.5,
          },
        },
        signal,
      );
      const created = createAnswer.safeParse(createBody);
      if (!created.success) throw new CourierError('courier created the order but gave no shipment id', true);
      const shipmentId = created.data.shipment_id;
      const assignBody = await authed('/v1/external/courier/assign/awb', { method: 'POST', body: { shipment_id: shipmentId } }, signal);
      const assigned = assignAnswer.safeParse(assignBody);
      if (!assigned.success) throw new CourierError('courier did not assign an AWB', true);
      const data = assigned.data.response.data;
      return {
        awb: data.awb_code,
        courier: String(data.courier_name ?? 'Shiprocket'),
        courierOrderId: String(created.data.order_id ?? ''),
        courierShipmentId: String(shipmentId),
      };
    },
    async track(awb: string, signal: AbortSignal): Promise<ShipmentStatus | null> {
      const body = await authed(`/v1/external/courier/track/awb/${encodeURIComponent(awb)}`, { method: 'GET' }, signal);
      const tracked = trackAnswer.safeParse(body);
      return tracked.success ? mapShiprocketStatus(tracked.data.tracking_data.shipment_track[0].current_status) : null;
    },
    trackingUrl: shiprocketTrackingUrl,
  };
}

/** Shiprocket in the courier registry: base URL, login email and password; the pickup location defaults to "Primary". */
export const shiprocketCourier = defineCourier({
  name: 'shiprocket',
  configSchema: z.object({
    baseUrl: apiUrl('shiprocket'),
    email: requiredSetting('shiprocket'),
    password: requiredSetting('shiprocket'),
    pickupLocation: z.string().default('Primary'),
  }) satisfies z.ZodType<ShiprocketSettings>,
  create: createShiprocketAdapter,
  mapStatus: mapShiprocketStatus,
  trackingUrl: shiprocketTrackingUrl,
});
