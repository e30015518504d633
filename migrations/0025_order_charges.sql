-- An order from a UCP checkout carries what the checkout charged besides its goods: shipping (with the goods, a
-- composite supply taxed at their rates) and discount codes (lowering the goods' taxable value). Each line keeps its
-- share of both (checkout/totals.ts splits them to the paisa), so an order's invoice taxes exactly what the buyer paid:
--   orders.amount = Σ line_total − discount_amount + shipping_amount, discount_amount = Σ discount, shipping_amount = Σ shipping.
-- Orders from POST /orders and staff drafts have neither (0).
SET LOCAL statement_timeout = 0;
ALTER TABLE orders
  ADD COLUMN discount_amount numeric(14, 2) NOT NULL DEFAULT 0 CHECK (discount_amount >= 0),
  ADD COLUMN shipping_amount numeric(14, 2) NOT NULL DEFAULT 0 CHECK (shipping_amount >= 0);
ALTER TABLE order_lines
  ADD COLUMN discount numeric(14, 2) NOT NULL DEFAULT 0 CHECK (discount >= 0),
  ADD COLUMN shipping numeric(14, 2) NOT NULL DEFAULT 0 CHECK (shipping >= 0);
