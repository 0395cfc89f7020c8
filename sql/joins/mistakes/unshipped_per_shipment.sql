SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: the bound is tested per shipment in WHERE, not per order in ON: an order with one shipment in time and
-- another late is listed as unshipped (and, without a bound in ON, this is a regular LEFT join: -D rows).
SELECT o.order_id, o.order_time
FROM orders o
LEFT JOIN shipments s ON o.order_id = s.order_id
WHERE s.ship_id IS NULL
   OR s.ship_time NOT BETWEEN o.order_time AND o.order_time + INTERVAL '2' HOUR;
