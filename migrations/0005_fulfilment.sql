-- Fulfilment: courier configuration, shipments with their tracking history, invoices with a consecutive
-- per-company per-financial-year series, and payments.

-- Which courier adapter a company uses. Credentials and the callback secret are never logged or shown back.
CREATE TABLE courier_configs (
  company_id text NOT NULL REFERENCES companies (id),
  adapter text NOT NULL CHECK (adapter IN ('manual', 'shiprocket')),
  base_url text,
  api_email text,
  api_password text,
  pickup_location text,
  -- HMAC-SHA256 key for tracking callbacks (POST /couriers/{company}/callback)
  callback_secret text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id)
);

-- One parcel per order. status is the courier's latest state (spec: shipment.status).
CREATE TABLE shipments (
  company_id text NOT NULL,
  id text NOT NULL,
  order_id text NOT NULL,
  adapter text NOT NULL CHECK (adapter IN ('manual', 'shiprocket')),
  courier text,
  awb text,
  status text NOT NULL CHECK (status IN ('pending', 'booked', 'picked_up', 'in_transit', 'out_for_delivery', 'delivered', 'rto', 'cancelled', 'failed')),
  tracking_url text,
  courier_order_id text,
  courier_shipment_id text,
  delivered_at timestamptz,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  UNIQUE (company_id, order_id),
  FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id)
);
CREATE UNIQUE INDEX shipments_awb ON shipments (company_id, awb) WHERE awb IS NOT NULL;

CREATE TABLE shipment_events (
  company_id text NOT NULL,
  id text NOT NULL,
  shipment_id text NOT NULL,
  status text NOT NULL,
  source text NOT NULL CHECK (source IN ('worker', 'callback', 'cli')),
  note text,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, shipment_id) REFERENCES shipments (company_id, id)
);
CREATE INDEX shipment_events_shipment ON shipment_events (company_id, shipment_id, created_at);

-- GST wants a consecutive series per financial year: one counter row per (company, FY), taken under lock
-- in the issuing transaction, so a rollback gives the number back and no two invoices share one.
CREATE TABLE invoice_counters (
  company_id text NOT NULL REFERENCES companies (id),
  financial_year text NOT NULL,
  last_number integer NOT NULL,
  PRIMARY KEY (company_id, financial_year)
);

CREATE TABLE invoices (
  company_id text NOT NULL,
  id text NOT NULL,
  order_id text NOT NULL,
  invoice_number text NOT NULL,
  financial_year text NOT NULL,
  total numeric(14, 2) NOT NULL,
  amount_paid numeric(14, 2) NOT NULL DEFAULT 0 CHECK (amount_paid >= 0 AND amount_paid <= total),
  issued_at timestamptz NOT NULL,
  due_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  UNIQUE (company_id, order_id),
  UNIQUE (company_id, invoice_number),
  FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id)
);

-- invoices.amount_paid = sum(payments.amount) per invoice, both written in one transaction.
CREATE TABLE payments (
  company_id text NOT NULL,
  id text NOT NULL,
  invoice_id text NOT NULL,
  amount numeric(14, 2) NOT NULL CHECK (amount > 0),
  method text NOT NULL CHECK (method IN ('prepaid', 'cod', 'manual')),
  reference text,
  recorded_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id)
);
CREATE INDEX payments_invoice ON payments (company_id, invoice_id);

-- A worker's claim on a job: the job stays pending (run_at pushed past the lease) while a worker books it.
ALTER TABLE jobs ADD COLUMN claimed_by text;
