-- Couriers retry their updates: cash collected at a delivery is one fact per shipment, and updates that cannot
-- be applied without a person (a delivery for a cancelled order) are held for staff.

-- The COD payment a delivery recorded names its shipment; one such payment per shipment, so a repeated
-- "delivered, cash collected" sets that payment instead of adding another.
ALTER TABLE payments ADD COLUMN shipment_id text;
ALTER TABLE payments ADD CONSTRAINT payments_shipment_fk FOREIGN KEY (company_id, shipment_id) REFERENCES shipments (company_id, id);
CREATE UNIQUE INDEX payments_one_per_shipment ON payments (company_id, shipment_id) WHERE shipment_id IS NOT NULL;

-- Courier updates held for staff (`orders attention`). One open hold per shipment and status: repeats of the
-- same held update do not pile up.
CREATE TABLE courier_holds (
  company_id text NOT NULL,
  id text NOT NULL,
  order_id text NOT NULL,
  shipment_id text NOT NULL,
  status text NOT NULL,
  cod_collected text,
  source text NOT NULL CHECK (source IN ('worker', 'callback', 'cli')),
  reason text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  resolution text,
  PRIMARY KEY (company_id, id),
  FOREIGN KEY (company_id, order_id) REFERENCES orders (company_id, id),
  FOREIGN KEY (company_id, shipment_id) REFERENCES shipments (company_id, id)
);
CREATE UNIQUE INDEX courier_holds_open ON courier_holds (company_id, shipment_id, status) WHERE resolved_at IS NULL;
CREATE INDEX courier_holds_unresolved ON courier_holds (company_id, created_at) WHERE resolved_at IS NULL;
