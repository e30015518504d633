-- Companies (tenants) and their API keys.
CREATE TABLE companies (
  id text PRIMARY KEY,
  name text NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
  slug text NOT NULL UNIQUE CHECK (slug ~ '^[a-z0-9][a-z0-9-]{0,62}$'),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
  -- 'commerce' includes orders and inventory; 'messaging' does not (the API answers 403).
  plan text NOT NULL DEFAULT 'commerce' CHECK (plan IN ('commerce', 'messaging')),
  auto_courier_booking boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Only a SHA-256 of the key is kept, plus its visible prefix for people and logs.
-- key_hash is unique on its own: the key alone decides the company (a reference table under Citus).
CREATE TABLE api_keys (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  prefix text NOT NULL,
  key_hash bytea NOT NULL,
  name text,
  created_at timestamptz NOT NULL DEFAULT now(),
  last_used_at timestamptz,
  revoked_at timestamptz,
  PRIMARY KEY (company_id, id)
);
CREATE UNIQUE INDEX api_keys_key_hash ON api_keys (key_hash);
CREATE INDEX api_keys_active ON api_keys (company_id) WHERE revoked_at IS NULL;

-- Service-wide secrets shared by every instance (e.g. the photo-link signing secret).
CREATE TABLE service_secrets (
  name text PRIMARY KEY,
  value text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
