-- Retention by rule (issue 34): what the retention worker finds its rows by, per company, so each small batch it deletes
-- is a few index probes, never a scan of a table. The indexes of migration 0032 (events_created, jobs_finished,
-- checkout_sessions_ended) serve the rest.
SET LOCAL statement_timeout = 0;

-- An event's deliveries, by event: the purge deletes them with their event, and the foreign key from
-- webhook_deliveries to events is checked through this index on every event deleted (the primary key leads with the
-- endpoint, so without it each deleted event would scan the company's deliveries).
CREATE INDEX webhook_deliveries_event ON webhook_deliveries (company_id, event_id);
-- Finished UCP order events (delivered or failed), by age.
CREATE INDEX ucp_order_deliveries_finished ON ucp_order_deliveries (company_id, created_at) WHERE status <> 'pending';
-- Razorpay events acted on, by age (the de-duplication record is kept well past Razorpay's retries).
CREATE INDEX payment_events_acted ON payment_events (company_id, created_at) WHERE status = 'acted';
-- Idempotency records by company and age (idempotency_records_created is by age alone, across companies).
CREATE INDEX idempotency_records_company_created ON idempotency_records (company_id, created_at);
-- Canceled checkouts (by the platform, or expired) by age: checkout_sessions_ended also holds the completed ones, which
-- stay (an order's checkout), so the purge of the canceled ones would walk past them all on every pass.
CREATE INDEX checkout_sessions_canceled ON checkout_sessions (company_id, updated_at) WHERE status = 'canceled';
-- Completed checkouts still holding the buyer's details, by age: once stripped they leave this index.
CREATE INDEX checkout_sessions_completed_personal ON checkout_sessions (company_id, updated_at)
  WHERE status = 'completed' AND (buyer IS NOT NULL OR fulfillment IS NOT NULL);
-- Audit entries by time, for the one rule that deletes them (past audit_retention_days).
CREATE INDEX audit_log_at ON audit_log (company_id, at);
