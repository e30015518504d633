-- Who settled an order's COD confirmation (issue 33): the buyer through the flow, staff, the time limit, or a payment
-- online (paid counts as confirmed). Null while pending or never asked.
SET LOCAL statement_timeout = 0;

ALTER TABLE orders ADD COLUMN cod_confirmation_settled_by text CHECK (cod_confirmation_settled_by IN ('buyer', 'staff', 'timeout', 'payment'));
