-- Finds or creates the customer with this phone. The record keeps what it knows: name and email on file never
-- change; the address is filled only when the record has none, and then updated_at moves to this statement's time
-- (EXCLUDED.updated_at: Citus refuses now() in DO UPDATE SET). ON CONFLICT DO UPDATE returns the row even when a
-- concurrent transaction created it after our snapshot (it waits for that transaction), and its row lock
-- serialises one customer's concurrent orders. PL/pgSQL: Citus crashed on a SQL-language version of it.
-- cust: { id, name, phone_e164, email, address { name, line1, line2, city, state, pincode, phone } | null }
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION upsert_customer(p_company text, cust jsonb) RETURNS customers
LANGUAGE plpgsql AS $$
DECLARE
  c customers%ROWTYPE;
BEGIN
  INSERT INTO customers AS cu (company_id, id, name, phone_e164, email, address_name, address_line1, address_line2, city, state, pincode, address_phone)
  VALUES (p_company, cust->>'id', cust->>'name', cust->>'phone_e164', cust->>'email', cust->'address'->>'name', cust->'address'->>'line1',
          cust->'address'->>'line2', cust->'address'->>'city', cust->'address'->>'state', cust->'address'->>'pincode', cust->'address'->>'phone')
  ON CONFLICT (company_id, phone_e164) DO UPDATE SET
    address_name = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.address_name ELSE cu.address_name END,
    address_line1 = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.address_line1 ELSE cu.address_line1 END,
    address_line2 = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.address_line2 ELSE cu.address_line2 END,
    city = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.city ELSE cu.city END,
    state = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.state ELSE cu.state END,
    pincode = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.pincode ELSE cu.pincode END,
    address_phone = CASE WHEN cu.address_line1 IS NULL THEN EXCLUDED.address_phone ELSE cu.address_phone END,
    updated_at = CASE WHEN cu.address_line1 IS NULL AND EXCLUDED.address_line1 IS NOT NULL THEN EXCLUDED.updated_at ELSE cu.updated_at END
  RETURNING * INTO c;
  RETURN c;
END $$;
