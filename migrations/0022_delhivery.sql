-- Delhivery joins the couriers (src/couriers/registry.ts owns the names): the CHECK constraints that name the
-- adapters a company and a shipment may use take its name. test/couriers/registry.test.ts compares these lists
-- with the registry, so a courier added there without its migration fails the tests.
SET LOCAL statement_timeout = 0;
ALTER TABLE courier_configs DROP CONSTRAINT courier_configs_adapter_check;
ALTER TABLE courier_configs ADD CONSTRAINT courier_configs_adapter_check CHECK (adapter IN ('manual', 'shiprocket', 'delhivery'));
ALTER TABLE shipments DROP CONSTRAINT shipments_adapter_check;
ALTER TABLE shipments ADD CONSTRAINT shipments_adapter_check CHECK (adapter IN ('manual', 'shiprocket', 'delhivery'));
