SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: `<` excludes the shipments exactly 2 h after the order.
SELECT o.order_id, s.ship_id, TIMESTAMPDIFF(SECOND, o.order_time, s.ship_time) AS delay_s
FROM orders o
JOIN shipments s
  ON o.order_id = s.order_id
 AND s.ship_time >= o.order_time
 AND s.ship_time < o.order_time + INTERVAL '2' HOUR;
