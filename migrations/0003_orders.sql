CREATE TABLE customers (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  name text NOT NULL,
  phone_e164 text NOT NULL,
  email text,
  address_name text,
  address_line1 text,
  address_line2 text,
  city text,
  state text,
  pincode text,
  address_phone text,
  messaging_opted_out boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  UNIQUE (company_id, phone_e164)
);

-- Order numbers need not be gapless: one formatted global sequence, no per-company counter row.
CREATE SEQUENCE order_number_seq START 100001;

CREATE TABLE orders (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  order_number text NOT NULL,
  external_reference text,
  customer_id text NOT NULL,
  status text NOT NULL CHECK (status IN ('draft', 'confirmed', 'packed', 'shipped', 'delivered', 'cancelled', 'returned')),
  payment text NOT NULL CHECK (payment IN ('cod', 'prepaid')),
  payment_reference text,
  notes text,
  amount numeric(14, 2) NOT NULL,
  currency text NOT NULL DEFAULT 'INR',
  -- the order's own shipping address (a snapshot), or null when none is usable yet
  delivery_address jsonb,
  location_id text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  UNIQUE (company_id, order_number),
  UNIQUE (company_id, external_reference),
  FOREIGN KEY (company_id, customer_id) REFERENCES customers (company_id, id)
);
CREATE INDEX orders_customer ON orders (company_id, customer_id, created_at DESC);

CREATE TABLE order_lines (
  company_id text NOT NULL,
  order_id text NOT NULL,
  line_no integer NOT NULL,
  variant_id text NOT NULL,
  sku text NOT NULL,
  name text NOT NULL,
  quantity numeric(14, 3) NOT NULL CHECK (quantity > 0),
  unit_price numeric(12, 2) NOT NULL,
  line_total numeric(14, 2) NOT NULL,
  tax_rate numeric(5, 2) NOT NULL,
  PRIMARY KEY (company_id, order_id, line_no),
  FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id),
  FOREIGN KEY (company_id, variant_id) REFERENCES variants (company_id, id)
);

-- Why stock_levels.reserved is what it is: reserved = sum(quantity) of open rows, per stock row.
CREATE TABLE stock_reservations (
  company_id text NOT NULL,
  id text NOT NULL,
  order_id text NOT NULL,
  variant_id text NOT NULL,
  location_id text NOT NULL,
  quantity numeric(14, 3) NOT NULL CHECK (quantity > 0),
  status text NOT NULL DEFAULT 'open' CHECK (status IN ('open', 'released', 'converted')),
  created_at timestamptz NOT NULL DEFAULT now(),
  closed_at timestamptz,
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id),
  FOREIGN KEY (company_id, variant_id, location_id) REFERENCES stock_levels (company_id, variant_id, location_id)
);
CREATE INDEX stock_reservations_order ON stock_reservations (company_id, order_id);
CREATE INDEX stock_reservations_open ON stock_reservations (company_id, variant_id, location_id) WHERE status = 'open';

-- Transactional outbox: work that must follow a commit (courier booking), claimed with SKIP LOCKED.
CREATE TABLE jobs (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  kind text NOT NULL,
  order_id text,
  status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'done', 'failed')),
  run_at timestamptz NOT NULL DEFAULT now(),
  attempts integer NOT NULL DEFAULT 0,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id)
);
CREATE INDEX jobs_due ON jobs (run_at) WHERE status = 'pending';
CREATE UNIQUE INDEX jobs_one_pending_per_order ON jobs (company_id, kind, order_id) WHERE status = 'pending';
