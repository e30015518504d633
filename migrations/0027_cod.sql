-- Cash on delivery that converts (issue 33): the company's COD settings, an order's COD confirmation, and the payment
-- links that turn a COD order into a prepaid one. Every table is keyed by company_id (Citus distributes it).
SET LOCAL statement_timeout = 0;

-- One row per company that set any of it; no row is every default (confirmation off, no rule).
CREATE TABLE cod_settings (
  company_id text PRIMARY KEY REFERENCES companies (id),
  -- "confirm COD before booking": a new COD order waits for the buyer's yes before a courier is booked
  confirm_before_booking boolean NOT NULL DEFAULT false,
  -- how long a confirmation may stay pending, then what happens to the order: cancelled (stock back) or left for staff
  confirm_within_minutes integer NOT NULL DEFAULT 1440 CHECK (confirm_within_minutes BETWEEN 5 AND 10080),
  on_timeout text NOT NULL DEFAULT 'cancel' CHECK (on_timeout IN ('cancel', 'staff')),
  -- PIN codes where COD is not offered: '560001' or an inclusive range '560001-560099'
  blocked_pincodes text[] NOT NULL DEFAULT '{}',
  -- the largest order amount (INR, with GST) COD is offered for; null: no limit
  max_order_value numeric(14, 2) CHECK (max_order_value > 0),
  -- a customer whose returns to origin exceed this many is not offered COD; null: not checked
  rto_threshold integer CHECK (rto_threshold >= 0),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- An order's COD confirmation: null (not asked: prepaid, or confirmation off), 'pending', then 'confirmed' or 'declined'.
ALTER TABLE orders ADD COLUMN cod_confirmation text CHECK (cod_confirmation IN ('pending', 'confirmed', 'declined'));
-- until when a pending confirmation may wait (set with 'pending')
ALTER TABLE orders ADD COLUMN cod_confirmation_due_at timestamptz;
-- when it was settled (confirmed or declined, by the buyer, staff or the time limit)
ALTER TABLE orders ADD COLUMN cod_confirmation_settled_at timestamptz;
CREATE INDEX orders_cod_confirmation_due ON orders (company_id, cod_confirmation_due_at) WHERE cod_confirmation = 'pending';

-- A payment link made for an order (COD to prepaid on the same order). The provider's link id is the key; what it
-- pays for is also in payment_bindings (purpose 'payment_link', subject the order id), which the webhook reads.
CREATE TABLE order_payment_links (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  order_id text NOT NULL,
  provider text NOT NULL,
  short_url text NOT NULL,
  amount numeric(14, 2) NOT NULL,
  status text NOT NULL DEFAULT 'created' CHECK (status IN ('created', 'paid', 'expired', 'cancelled')),
  expires_at timestamptz,
  payment_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  paid_at timestamptz,
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id)
);
CREATE INDEX order_payment_links_order ON order_payment_links (company_id, order_id, created_at DESC);
