-- Order numbers per company (issue 12). `ORD-` + digits, unique per company (the UNIQUE (company_id,
-- order_number) key of 0003 stays), so a company's consecutive orders no longer reveal how many orders other
-- companies placed in between. Existing orders keep their numbers; a company's new numbers continue above its
-- highest existing one. Not gapless: a block handed to an instance that stops, or a refused order, leaves a gap.
--
-- One counter row per company, never updated inside an order's transaction: the service takes a block of
-- numbers with allocate_order_numbers() in a statement of its own (a short autocommit transaction, the row
-- lock held for microseconds) and hands them out from memory, so a company's orders do not queue behind one
-- another on this row. An ordinary row keyed by company_id (not a per-company SEQUENCE) so that, when tables
-- are distributed by company_id, the counter is colocated with the company's orders and moves with its shard.
-- See docs/decisions.md, "Production edges (issue 12)".
SET LOCAL statement_timeout = 0;

CREATE TABLE order_number_counters (
  company_id text PRIMARY KEY REFERENCES companies (id),
  -- the next number not yet handed out
  next_number bigint NOT NULL CHECK (next_number > 0)
);

-- Backfill: every company continues above its highest existing ORD-<digits> number (100001 when it has none,
-- the first number the global sequence gave).
INSERT INTO order_number_counters (company_id, next_number)
SELECT c.id, greatest(100001, coalesce(max(substring(o.order_number FROM 5)::bigint) + 1, 100001))
  FROM companies c
  LEFT JOIN orders o ON o.company_id = c.id AND o.order_number ~ '^ORD-[0-9]{1,18}$'
 GROUP BY c.id;

-- History: the live body is src/db/functions/allocate_order_numbers.sql (applied by migrate() after the migrations).
-- Takes p_count consecutive numbers for the company and returns the first. Call it in its own statement,
-- outside any long transaction: the counter row stays locked until the caller's transaction ends. A company
-- without a row yet (created after this migration) starts above its highest existing number, read once.
CREATE FUNCTION allocate_order_numbers(p_company text, p_count integer) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
  first bigint;
BEGIN
  IF p_count IS NULL OR p_count < 1 THEN
    RAISE EXCEPTION 'allocate_order_numbers: count must be at least 1';
  END IF;
  UPDATE order_number_counters SET next_number = next_number + p_count
   WHERE company_id = p_company
  RETURNING next_number - p_count INTO first;
  IF FOUND THEN
    RETURN first;
  END IF;
  INSERT INTO order_number_counters AS n (company_id, next_number)
  SELECT p_company, greatest(100001, coalesce(max(substring(o.order_number FROM 5)::bigint) + 1, 100001)) + p_count
    FROM orders o
   WHERE o.company_id = p_company AND o.order_number ~ '^ORD-[0-9]{1,18}$'
  ON CONFLICT (company_id) DO UPDATE SET next_number = n.next_number + p_count
  RETURNING next_number - p_count INTO first;
  RETURN first;
END $$;

-- History: the live body is src/db/functions/place_order.sql (applied by migrate() after the migrations).
-- place_order() as in 0007, but the order number comes from the caller (p.order.order_number, taken from a
-- block by the service). Without one (an instance of the previous release during a rolling deploy) it takes
-- a single number inside this transaction: correct, but that call holds the counter row until commit.
CREATE OR REPLACE FUNCTION place_order(p_company text, p jsonb) RETURNS jsonb
LANGUAGE plpgsql AS $$
DECLARE
  ord jsonb := p->'order';
  c customers%ROWTYPE;
  o orders%ROWTYPE;
BEGIN
  c := upsert_customer(p_company, p->'customer');

  INSERT INTO orders (company_id, id, order_number, external_reference, customer_id, status, payment, payment_reference, notes, amount, delivery_address, location_id)
  VALUES (p_company, ord->>'id', coalesce(ord->>'order_number', 'ORD-' || allocate_order_numbers(p_company, 1)), ord->>'external_reference', c.id, 'confirmed',
          ord->>'payment', ord->>'payment_reference', ord->>'notes', (ord->>'amount')::numeric, nullif(ord->'delivery_address', 'null'::jsonb), ord->>'location_id')
  ON CONFLICT (company_id, external_reference) DO NOTHING
  RETURNING * INTO o;
  IF o.id IS NULL THEN
    RAISE EXCEPTION 'external_reference already used' USING ERRCODE = 'CS200';
  END IF;

  INSERT INTO order_lines (company_id, order_id, line_no, variant_id, sku, name, quantity, unit_price, line_total, tax_rate)
  SELECT p_company, o.id, x.ord, x.l->>'variant_id', x.l->>'sku', x.l->>'name', (x.l->>'quantity')::numeric,
         (x.l->>'unit_price')::numeric, (x.l->>'line_total')::numeric, (x.l->>'tax_rate')::numeric
    FROM jsonb_array_elements(p->'lines') WITH ORDINALITY AS x(l, ord);
  IF p->>'booking_job_id' IS NOT NULL THEN
    INSERT INTO jobs (company_id, id, kind, order_id, status) VALUES (p_company, p->>'booking_job_id', 'book_courier', o.id, 'pending')
    ON CONFLICT DO NOTHING;
  END IF;

  PERFORM reserve_stock(p_company, ord->>'location_id', o.id, p->'reservations');

  RETURN jsonb_build_object(
    'id', o.id, 'order_number', o.order_number, 'status', o.status, 'amount', o.amount::text, 'currency', o.currency,
    'created_at', o.created_at, 'external_reference', o.external_reference, 'payment', o.payment,
    'delivery_address', o.delivery_address, 'customer_name', c.name, 'customer_phone', c.phone_e164);
END $$;

-- order_number_seq (0003) is no longer used by this release; it stays for instances of the previous release
-- during a rolling deploy (their drafts) and can be dropped by a later migration.
