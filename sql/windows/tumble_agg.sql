SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Orders and revenue per shop and 10-minute window: one final row per group when the window closes.
SELECT window_start, window_end, shop, COUNT(*) AS orders, SUM(amount) AS revenue
FROM TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES)
GROUP BY window_start, window_end, shop;
