SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: no PARTITION BY shop in the SESSION TVF (shop only in the GROUP BY).
SELECT shop, window_start, window_end, COUNT(*) AS orders
FROM SESSION(TABLE orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTES)
GROUP BY shop, window_start, window_end;
