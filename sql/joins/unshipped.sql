SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- The time condition belongs in ON: in WHERE it would reject the NULL-padded rows (and the planner turns the
-- LEFT join into an inner one). Each order without a shipment in time comes out once, when the watermark passes
-- order_time + 2 h.
SELECT o.order_id, o.order_time
FROM orders o
LEFT JOIN shipments s
  ON o.order_id = s.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '2' HOUR
WHERE s.ship_id IS NULL;
