-- A company's payment provider (Razorpay), the provider's webhook events as received, and which provider order or
-- payment link pays for which of our checkouts or orders. Every key starts with company_id, as every tenant table.
SET LOCAL statement_timeout = 0;

-- The company's Razorpay account. Both secrets are sealed (src/lib/secret-box.ts), never stored in clear. The
-- previous webhook secret is kept for a while after a change: Razorpay signs its retries of older events with the
-- secret they were first sent with. mode follows the key id (rzp_test_… or rzp_live_…).
CREATE TABLE payment_configs (
  company_id text PRIMARY KEY REFERENCES companies (id),
  provider text NOT NULL CHECK (provider IN ('razorpay')),
  key_id text NOT NULL CHECK (key_id ~ '^rzp_(test|live)_[A-Za-z0-9]{1,64}$'),
  key_secret_enc text NOT NULL,
  webhook_secret_enc text NOT NULL,
  previous_webhook_secret_enc text,
  webhook_secret_changed_at timestamptz,
  -- the provider's API address; null: its public one
  base_url text,
  mode text NOT NULL CHECK (mode IN ('test', 'live')),
  updated_at timestamptz NOT NULL DEFAULT now(),
  CHECK ((mode = 'live') = (key_id LIKE 'rzp\_live\_%'))
);

-- Each webhook event once, by the provider's event id (X-Razorpay-Event-Id; without one, the payment or link id and
-- the event name), recorded before anything acts on it. recorded: not acted on yet (no handler, or the handler
-- failed and the provider will deliver it again); acted; needs_attention: money moved for something staff must
-- settle (no binding, or the handler said so). payload keeps the members we read, never the buyer's contact or card.
CREATE TABLE payment_events (
  company_id text NOT NULL REFERENCES companies (id),
  provider text NOT NULL CHECK (provider IN ('razorpay')),
  event_id text NOT NULL,
  event_type text NOT NULL,
  payment_id text,
  provider_order_id text,
  amount numeric(12, 2),
  status text NOT NULL DEFAULT 'recorded' CHECK (status IN ('recorded', 'acted', 'needs_attention')),
  -- why an event needs attention
  note text,
  payload jsonb NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, provider, event_id)
);

-- What a provider order (order_…) or payment link (plink_…) pays for: a checkout (UCP hosted checkout) or an order
-- (a COD order turned prepaid by a link). Written when the provider object is made, before the buyer can pay.
CREATE TABLE payment_bindings (
  company_id text NOT NULL REFERENCES companies (id),
  provider text NOT NULL CHECK (provider IN ('razorpay')),
  provider_order_id text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('checkout', 'payment_link')),
  subject_id text NOT NULL,
  amount numeric(12, 2) NOT NULL CHECK (amount > 0),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, provider, provider_order_id)
);
CREATE INDEX payment_bindings_subject ON payment_bindings (company_id, subject_id);
