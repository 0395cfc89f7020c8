SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: the time condition is in WHERE, so it rejects the NULL-padded rows.
SELECT o.order_id, o.order_time
FROM orders o
LEFT JOIN shipments s ON o.order_id = s.order_id
WHERE s.ship_id IS NULL
  AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '2' HOUR;
