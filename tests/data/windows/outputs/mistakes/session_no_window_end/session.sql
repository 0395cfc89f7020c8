SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: sessions grouped by shop and window_start without window_end (MAX(window_end) hides it).
SELECT shop, window_start, MAX(window_end) AS window_end, COUNT(*) AS orders
FROM SESSION(TABLE orders PARTITION BY shop, DESCRIPTOR(order_time), INTERVAL '5' MINUTES)
GROUP BY shop, window_start;
