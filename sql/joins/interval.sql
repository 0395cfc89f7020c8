SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- BETWEEN includes both ends: a shipment 0 s and exactly 7200 s after the order joins, 7201 s does not.
SELECT o.order_id, s.ship_id, TIMESTAMPDIFF(SECOND, o.order_time, s.ship_time) AS delay_s
FROM orders o
JOIN shipments s
  ON o.order_id = s.order_id
 AND s.ship_time BETWEEN o.order_time AND o.order_time + INTERVAL '2' HOUR;
