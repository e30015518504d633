-- Who settled an order's COD confirmation (issue 33): the buyer through the flow, staff, the time limit, or a payment
-- online (paid counts as confirmed). Null while pending or never asked.
SET LOCAL statement_timeout = 0;

ALTER TABLE orders ADD COLUMN cod_confirmation_settled_by text CHECK (cod_confirmation_settled_by IN ('buyer', 'staff', 'timeout', 'payment'));

-- request_cod_confirmation() counts the time limit from a moment its caller gives (src/db/functions/); the version
-- without it goes first, so no call can match both.
DROP FUNCTION IF EXISTS request_cod_confirmation(text, text, text);
