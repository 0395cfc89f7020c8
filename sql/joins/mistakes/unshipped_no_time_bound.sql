SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: no time bound at all: a regular LEFT join, so a late shipment still counts as shipped (and the
-- result is an updating stream).
SELECT o.order_id, o.order_time
FROM orders o
LEFT JOIN shipments s ON o.order_id = s.order_id
WHERE s.ship_id IS NULL;
