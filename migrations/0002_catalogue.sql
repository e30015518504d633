CREATE EXTENSION IF NOT EXISTS pg_trgm;

CREATE TABLE categories (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  parent_id text,
  name text NOT NULL,
  slug text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  UNIQUE (company_id, slug),
  FOREIGN KEY (company_id, parent_id) REFERENCES categories (company_id, id)
);

CREATE TABLE brands (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  name text NOT NULL,
  slug text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  UNIQUE (company_id, slug)
);

CREATE TABLE products (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  sku text NOT NULL,
  name text NOT NULL,
  -- lower(name): the browse sort key, with id as the tie-break.
  sort_name text NOT NULL,
  description text,
  unit text NOT NULL DEFAULT 'PCS',
  hsn_code text,
  tax_rate numeric(5, 2) NOT NULL DEFAULT 0 CHECK (tax_rate >= 0 AND tax_rate <= 100),
  active boolean NOT NULL DEFAULT true,
  category_id text,
  brand_id text,
  -- lower-cased searchable text of the product and its variants, maintained on write.
  search_text text NOT NULL DEFAULT '',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  UNIQUE (company_id, sku),
  FOREIGN KEY (company_id, category_id) REFERENCES categories (company_id, id),
  FOREIGN KEY (company_id, brand_id) REFERENCES brands (company_id, id)
);
CREATE INDEX products_browse ON products (company_id, sort_name, id) WHERE active;
CREATE INDEX products_category ON products (company_id, category_id) WHERE active;
CREATE INDEX products_brand ON products (company_id, brand_id) WHERE active;
CREATE INDEX products_search ON products USING gin (search_text gin_trgm_ops);

CREATE TABLE variants (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  product_id text NOT NULL,
  sku text NOT NULL,
  barcode text,
  name text NOT NULL,
  attributes jsonb NOT NULL DEFAULT '{}'::jsonb,
  position integer NOT NULL DEFAULT 0,
  selling_price numeric(12, 2) NOT NULL CHECK (selling_price >= 0),
  mrp numeric(12, 2) NOT NULL CHECK (mrp >= 0),
  active boolean NOT NULL DEFAULT true,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  UNIQUE (company_id, sku),
  FOREIGN KEY (company_id, product_id) REFERENCES products (company_id, id)
);
CREATE UNIQUE INDEX variants_barcode ON variants (company_id, barcode) WHERE barcode IS NOT NULL;
CREATE INDEX variants_product ON variants (company_id, product_id, position);

CREATE TABLE product_photos (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  product_id text NOT NULL,
  variant_id text,
  -- path inside the media folder, relative, e.g. <company_id>/<file>
  path text NOT NULL,
  alt text,
  position integer NOT NULL DEFAULT 0,
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, product_id) REFERENCES products (company_id, id),
  FOREIGN KEY (company_id, variant_id) REFERENCES variants (company_id, id)
);
CREATE INDEX product_photos_product ON product_photos (company_id, product_id, position);

CREATE TABLE stock_locations (
  company_id text NOT NULL REFERENCES companies (id),
  id text NOT NULL,
  code text NOT NULL,
  name text NOT NULL,
  kind text NOT NULL DEFAULT 'warehouse' CHECK (kind IN ('warehouse', 'store')),
  active boolean NOT NULL DEFAULT true,
  ships_orders boolean NOT NULL DEFAULT false,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  UNIQUE (company_id, code)
);
-- Exactly one location per company is where orders ship from.
CREATE UNIQUE INDEX stock_locations_ship_from ON stock_locations (company_id) WHERE ships_orders;

-- reserved is a counter owned by the reservation module, changed only under this row's lock.
CREATE TABLE stock_levels (
  company_id text NOT NULL REFERENCES companies (id),
  variant_id text NOT NULL,
  location_id text NOT NULL,
  on_hand numeric(14, 3) NOT NULL DEFAULT 0,
  reserved numeric(14, 3) NOT NULL DEFAULT 0 CHECK (reserved >= 0),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, variant_id, location_id),
  FOREIGN KEY (company_id, variant_id) REFERENCES variants (company_id, id),
  FOREIGN KEY (company_id, location_id) REFERENCES stock_locations (company_id, id)
);
