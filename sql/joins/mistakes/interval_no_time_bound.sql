SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: no time condition: a regular join keeps every shipment of an order, however late or early.
SELECT o.order_id, s.ship_id, TIMESTAMPDIFF(SECOND, o.order_time, s.ship_time) AS delay_s
FROM orders o
JOIN shipments s
  ON o.order_id = s.order_id;
