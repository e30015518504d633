-- Customers' data under India's DPDP Act (issue 34): consent records, the company's privacy settings (notice link and
-- retention), erasure marks and the audit trail. Every table is keyed by company_id (Citus distributes it).
SET LOCAL statement_timeout = 0;

-- A company's privacy settings. No row: the defaults (no notice link, the retention periods below, inactive customers
-- kept). Days and years are bounded so a typo cannot purge everything at once nor keep everything forever.
CREATE TABLE privacy_settings (
  company_id text PRIMARY KEY REFERENCES companies (id),
  -- the company's privacy notice (https), returned where the flow and agents meet the customer
  notice_url text CHECK (notice_url ~ '^https://' AND char_length(notice_url) <= 2000),
  -- delivered events and their webhook deliveries are deleted this many days after the event
  events_retention_days integer NOT NULL DEFAULT 30 CHECK (events_retention_days BETWEEN 1 AND 3650),
  -- finished (done or failed) jobs and finished UCP order deliveries, after this many days
  jobs_retention_days integer NOT NULL DEFAULT 30 CHECK (jobs_retention_days BETWEEN 1 AND 3650),
  -- checkout sessions that ended (expired, canceled, completed), this many days after they ended
  checkout_sessions_retention_days integer NOT NULL DEFAULT 30 CHECK (checkout_sessions_retention_days BETWEEN 1 AND 3650),
  -- customers with no order and no change for this many years are anonymised; null: off (the default)
  inactive_customer_years integer CHECK (inactive_customer_years BETWEEN 1 AND 20),
  -- audit entries are kept this long (the Rules keep logs at least a year)
  audit_retention_days integer NOT NULL DEFAULT 1095 CHECK (audit_retention_days BETWEEN 365 AND 3650),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Consent, as an append-only history: one row per given or withdrawn, per purpose and channel. A customer's state for
-- a purpose and channel is the newest row (none: never asked). messaging_opted_out is derived from it and kept on
-- customers in the same transaction.
CREATE TABLE customer_consents (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  customer_id text NOT NULL,
  purpose text NOT NULL CHECK (purpose IN ('order_updates', 'marketing')),
  channel text NOT NULL CHECK (channel IN ('messaging', 'email')),
  state text NOT NULL CHECK (state IN ('given', 'withdrawn')),
  -- through what: the REST order, the MCP tool, the UCP checkout, the opt-out endpoint, the consent door, the CLI,
  -- the inactive-customer rule or an erasure
  source text NOT NULL CHECK (source IN ('order', 'place_order', 'ucp_checkout', 'opt_out', 'api', 'mcp', 'cli', 'erasure')),
  -- who recorded it: a key prefix or a CLI user (never personal data)
  actor text,
  recorded_at timestamptz NOT NULL,
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, customer_id) REFERENCES customers (company_id, id)
);
CREATE INDEX customer_consents_latest ON customer_consents (company_id, customer_id, purpose, channel, recorded_at DESC);

-- An erased (or anonymised) customer keeps its row and id, so orders and invoices still point somewhere; the personal
-- fields are gone. erased_at says when; the row can never be recognised by phone again.
ALTER TABLE customers ADD COLUMN erased_at timestamptz;

-- The audit trail of administrative and data-rights actions: append-only (no statement of the service updates or
-- deletes a row but the retention rule past audit_retention_days), never holding personal data itself (subjects are
-- ids, detail names fields, not values).
CREATE TABLE audit_log (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  seq bigserial NOT NULL,
  -- 'cli' (actor: the operating-system user running the admin command), 'key' (actor: the key prefix), 'service'
  -- (a worker applying a rule; actor: the rule)
  actor_kind text NOT NULL CHECK (actor_kind IN ('cli', 'key', 'service')),
  actor text NOT NULL,
  action text NOT NULL,
  subject_kind text,
  subject_id text,
  detail jsonb NOT NULL DEFAULT '{}',
  at timestamptz NOT NULL,
  PRIMARY KEY (company_id, id)
);
CREATE INDEX audit_log_seq ON audit_log (company_id, seq DESC);

-- What retention and erasure find by: an event's subject, its age; a finished job's age; an ended session's age.
CREATE INDEX events_subject ON events (company_id, subject_id);
CREATE INDEX events_created ON events (company_id, created_at);
CREATE INDEX jobs_finished ON jobs (company_id, updated_at) WHERE status <> 'pending';
CREATE INDEX checkout_sessions_ended ON checkout_sessions (company_id, updated_at) WHERE status IN ('completed', 'canceled');
