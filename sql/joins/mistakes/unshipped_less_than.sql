SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: `<` excludes the shipments exactly 2 h after the order, so those orders count as unshipped.
SELECT o.order_id, o.order_time
FROM orders o
LEFT JOIN shipments s
  ON o.order_id = s.order_id
 AND s.ship_time >= o.order_time
 AND s.ship_time < o.order_time + INTERVAL '2' HOUR
WHERE s.ship_id IS NULL;
