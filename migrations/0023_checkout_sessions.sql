-- Agents buy through the Universal Commerce Protocol (UCP): a company's checkout, off until its admin turns it on.
-- Every table is keyed by company_id first, as every other tenant table; ucp_hosts is looked up by Host before the
-- company is known, so it is a reference table on Citus (src/db/distribute.ts), like api_keys.
SET LOCAL statement_timeout = 0;

-- The company's UCP business settings: one row once the admin has touched them; no row = off, defaults below.
CREATE TABLE ucp_settings (
  company_id text PRIMARY KEY REFERENCES companies (id),
  enabled boolean NOT NULL DEFAULT false,
  -- how long a checkout holds its stock after its last change
  hold_minutes integer NOT NULL DEFAULT 30 CHECK (hold_minutes BETWEEN 1 AND 1440),
  privacy_url text,
  terms_url text,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- A seller's own domain behind the service: /.well-known/ucp of this Host is the company's. Never an unregistered Host.
CREATE TABLE ucp_hosts (
  company_id text NOT NULL REFERENCES companies (id),
  host text NOT NULL CHECK (host = lower(host) AND host <> ''),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, host),
  UNIQUE (host)
);

-- Shipping rates by zone. A destination matches a rate by PIN code range ('110001-110099' or one PIN), state name,
-- ISO country code, or everywhere; per service level the most specific zone wins (pincodes, states, countries,
-- everywhere). Free at or above free_above (the goods' value), or when the cart holds one of free_skus.
CREATE TABLE shipping_rates (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL CHECK (id ~ '^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$'),
  title text NOT NULL,
  description text,
  level text NOT NULL CHECK (level IN ('standard', 'express')),
  zone_kind text NOT NULL CHECK (zone_kind IN ('pincodes', 'states', 'countries', 'everywhere')),
  zone_values text[] NOT NULL DEFAULT '{}',
  price numeric(12, 2) NOT NULL CHECK (price >= 0),
  free_above numeric(12, 2) CHECK (free_above >= 0),
  free_skus text[] NOT NULL DEFAULT '{}',
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id)
);

-- Discount codes, stored upper-case (buyers type them in any case). percentage: value is the percent off the goods;
-- fixed: value is rupees off. used_count is raised under the code row's lock when an order takes it.
CREATE TABLE discount_codes (
  company_id text NOT NULL REFERENCES companies (id),
  code text NOT NULL CHECK (code = upper(code) AND code ~ '^[A-Z0-9][A-Z0-9_-]{0,31}$'),
  title text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('percentage', 'fixed')),
  value numeric(12, 2) NOT NULL CHECK (value > 0 AND (kind <> 'percentage' OR value <= 100)),
  min_order numeric(12, 2) CHECK (min_order >= 0),
  starts_at timestamptz,
  ends_at timestamptz,
  usage_limit integer CHECK (usage_limit > 0),
  per_customer_limit integer CHECK (per_customer_limit > 0),
  used_count integer NOT NULL DEFAULT 0 CHECK (used_count >= 0),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, code)
);

-- Which order took which code, for the per-customer limit (and the record of why an order was cheaper).
CREATE TABLE discount_redemptions (
  company_id text NOT NULL,
  code text NOT NULL,
  order_id text NOT NULL,
  customer_id text,
  amount numeric(12, 2) NOT NULL CHECK (amount >= 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, code, order_id),
  FOREIGN KEY (company_id, code) REFERENCES discount_codes (company_id, code),
  FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id)
);
CREATE INDEX discount_redemptions_customer ON discount_redemptions (company_id, code, customer_id);

-- A buyer's checkout. Its lines hold stock (stock_reservations.checkout_id) until it completes into an order, is
-- cancelled, or passes expires_at (released by the worker). Ids are unguessable (the surface is public).
CREATE TABLE checkout_sessions (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  status text NOT NULL CHECK (status IN ('incomplete', 'requires_escalation', 'ready_for_complete', 'complete_in_progress', 'completed', 'canceled')),
  currency text NOT NULL DEFAULT 'INR',
  -- the UCP version the session was created in (its answers keep that version's shape)
  ucp_version text NOT NULL,
  location_id text,
  line_items jsonb NOT NULL DEFAULT '[]',
  buyer jsonb,
  fulfillment jsonb,
  discount_codes text[] NOT NULL DEFAULT '{}',
  payment jsonb,
  -- where the platform wants order events (from its UCP-Agent profile), null when it said nowhere
  platform_webhook_url text,
  expires_at timestamptz NOT NULL,
  order_id text,
  -- what the checkout came to when it was completed (totals, codes, the options chosen), kept with its order: a
  -- completed checkout reads the same however the company's rates and codes change later
  completed_view jsonb,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id)
);
CREATE INDEX checkout_sessions_open_expiry ON checkout_sessions (expires_at)
  WHERE status IN ('incomplete', 'requires_escalation', 'ready_for_complete');

-- A checkout's held stock is a reservation like an order's (same counter, same row locks): a reservation names its
-- order or its checkout. Completing names the order on the checkout's open rows, in the order's transaction. No
-- foreign key to checkout_sessions: stock_reservations is already distributed on Citus when this runs, and a key
-- to a table not yet distributed cannot be added there; the holder is written only by the reservation module.
ALTER TABLE stock_reservations ALTER COLUMN order_id DROP NOT NULL;
ALTER TABLE stock_reservations ADD COLUMN checkout_id text;
ALTER TABLE stock_reservations ADD CONSTRAINT stock_reservations_holder CHECK (order_id IS NOT NULL OR checkout_id IS NOT NULL);
CREATE INDEX stock_reservations_checkout ON stock_reservations (company_id, checkout_id) WHERE checkout_id IS NOT NULL;

-- UCP's Idempotency-Key on every write: the first answer is kept and replayed for the same key and body; the same
-- key with another body is refused. scope names the operation and resource ('POST checkout-sessions', 'PUT <id>').
CREATE TABLE idempotency_records (
  company_id text NOT NULL REFERENCES companies (id),
  scope text NOT NULL,
  key text NOT NULL,
  request_hash bytea NOT NULL,
  status_code integer NOT NULL,
  response text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, scope, key)
);
CREATE INDEX idempotency_records_created ON idempotency_records (created_at);

-- Addresses a buyer gave in a checkout, kept for that buyer (by e-mail or phone: 'email:<lower-case>' or
-- 'phone:<E.164>') and offered at their next checkout, as a storefront's address book is. Not the customers table:
-- a UCP buyer may come with an e-mail alone, and customers are keyed by phone.
CREATE TABLE buyer_addresses (
  company_id text NOT NULL REFERENCES companies (id),
  buyer_key text NOT NULL,
  id text NOT NULL,
  address jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, buyer_key, id)
);
