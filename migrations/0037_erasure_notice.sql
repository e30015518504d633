-- DPDP Rules, Rule 8(2) (issue 34): at least 48 hours before a customer is erased for inactivity they are told so.
-- The inactive-customer rule stamps the time it recorded the customer.erasure_scheduled event; it erases only once the
-- stamp is 48 hours old and later than the customer's last activity (newest order, last change to the record). Setting
-- it leaves updated_at alone, so the notice is not itself activity.
ALTER TABLE customers ADD COLUMN erasure_notice_at timestamptz;
