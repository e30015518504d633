-- Consent records (issue 34): a customer who opted out of messages before consent was recorded gets the withdrawal
-- the opt-out meant, so `messaging_opted_out` is derived from customer_consents alone (the newest order_updates /
-- messaging row is withdrawn). Recorded as an opt-out at the customer's last change; no actor (it predates them).
SET LOCAL statement_timeout = 0;

INSERT INTO customer_consents (company_id, id, customer_id, purpose, channel, state, source, actor, recorded_at)
SELECT c.company_id, 'cns_' || md5(c.company_id || ':' || c.id), c.id, 'order_updates', 'messaging', 'withdrawn', 'opt_out', NULL, c.updated_at
  FROM customers c
 WHERE c.messaging_opted_out
   AND NOT EXISTS (SELECT 1 FROM customer_consents cc
                    WHERE cc.company_id = c.company_id AND cc.customer_id = c.id AND cc.purpose = 'order_updates' AND cc.channel = 'messaging');
