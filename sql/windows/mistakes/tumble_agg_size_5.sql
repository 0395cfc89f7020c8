SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: 5-minute windows where the lab asks for 10.
SELECT window_start, window_end, shop, COUNT(*) AS orders, SUM(amount) AS revenue
FROM TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTES)
GROUP BY window_start, window_end, shop;
