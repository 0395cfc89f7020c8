SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: an outer interval join over a wide window (so it stays append-only), then the 2 h bound tested per
-- shipment in WHERE: an order with one shipment in time and another outside the 2 h is listed as unshipped.
SELECT o.order_id, o.order_time
FROM orders o
LEFT JOIN shipments s
  ON o.order_id = s.order_id
 AND s.ship_time BETWEEN o.order_time - INTERVAL '1' DAY AND o.order_time + INTERVAL '1' DAY
WHERE s.ship_id IS NULL
   OR s.ship_time NOT BETWEEN o.order_time AND o.order_time + INTERVAL '2' HOUR;
