-- The WhatsApp (Meta commerce) catalogue feed (issue 20): per company, the hash of the secret in the feed's URL (Meta
-- fetches it on a schedule; the admin rotates it) and the template of the product page each row links to.
CREATE TABLE catalogue_feeds (
  company_id text NOT NULL REFERENCES companies (id),
  kind text NOT NULL DEFAULT 'meta' CHECK (kind IN ('meta')),
  token_hash bytea NOT NULL,
  product_url_template text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  rotated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, kind)
);
