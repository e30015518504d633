-- GST tax invoices (issue 15): the seller's tax profile, the invoice as issued (a frozen document), and credit notes
-- with their own consecutive series per company per financial year. See docs/decisions.md, "GST invoices (issue 15)".

-- One tax profile per company: what its invoices say about the seller. A company without a GSTIN is an unregistered
-- supplier: its invoices charge no GST and show no tax split. invoice_prefix starts each invoice number
-- (`INV/26-27/000001`: at most 3 characters so a number stays within GST's 16).
CREATE TABLE tax_profiles (
  company_id text NOT NULL REFERENCES companies (id),
  legal_name text NOT NULL,
  trade_name text,
  gstin text CHECK (gstin ~ '^[0-9]{2}[A-Z]{5}[0-9]{4}[A-Z][1-9A-Z][A-Z0-9][A-Z0-9]$'),
  address_line1 text NOT NULL,
  address_line2 text,
  city text NOT NULL,
  state text NOT NULL,
  pincode text NOT NULL,
  invoice_prefix text NOT NULL DEFAULT 'INV' CHECK (invoice_prefix ~ '^[A-Z][A-Z0-9]{0,2}$'),
  updated_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id)
);

-- The invoice as issued: seller, buyer, place of supply, lines with their tax, totals (src/fulfilment/invoice-document.ts).
-- Written once with the number; later changes to the profile, the customer or the catalogue do not change it. Null
-- for invoices issued before this migration: they are drawn from today's data (and keep their numbers).
ALTER TABLE invoices ADD COLUMN document jsonb;

-- Credit notes: their own series (`CN/26-27/000001`), consecutive per company per financial year like invoices.
CREATE TABLE credit_note_counters (
  company_id text NOT NULL REFERENCES companies (id),
  financial_year text NOT NULL,
  last_number integer NOT NULL,
  PRIMARY KEY (company_id, financial_year)
);

-- One credit note per invoice, reversing it whole when an invoiced order is cancelled or returned.
CREATE TABLE credit_notes (
  company_id text NOT NULL,
  id text NOT NULL,
  invoice_id text NOT NULL,
  credit_note_number text NOT NULL,
  financial_year text NOT NULL,
  reason text NOT NULL CHECK (reason IN ('cancelled', 'returned')),
  total numeric(14, 2) NOT NULL,
  issued_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (company_id, id),
  UNIQUE (company_id, invoice_id),
  UNIQUE (company_id, credit_note_number)
);

-- A table with a foreign key to a distributed table is distributed before the key is added (docs/scaling.md). On a
-- new database nothing is distributed yet: the table stays plain and distribute() takes it with the others.
-- (Two IFs: without Citus there is no pg_dist_partition to name.)
DO $$ BEGIN
  IF EXISTS (SELECT 1 FROM pg_extension WHERE extname = 'citus') THEN
    IF EXISTS (SELECT 1 FROM pg_dist_partition WHERE logicalrelid = 'invoices'::regclass) THEN
      PERFORM create_distributed_table('credit_notes', 'company_id', colocate_with => 'invoices');
    END IF;
  END IF;
END $$;

ALTER TABLE credit_notes ADD FOREIGN KEY (company_id, invoice_id) REFERENCES invoices (company_id, id);
