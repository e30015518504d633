-- The one writer of a courier-booking job (transactional outbox; the fulfilment worker performs it): called by
-- place_order() and by the service (src/orders/orders.queries.ts, insertCourierBookingJob). A second request
-- for the same order while one is pending is absorbed by the unique index on pending bookings.
-- PL/pgSQL so its INSERT is planned once per session (a SQL-language function called from place_order() is
-- planned on every call).
-- plan: postgres=auto citus=custom
CREATE OR REPLACE FUNCTION enqueue_courier_booking(p_company text, p_job text, p_order text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO jobs (company_id, id, kind, order_id, status) VALUES (p_company, p_job, 'book_courier', p_order, 'pending')
  ON CONFLICT DO NOTHING;
END $$;
