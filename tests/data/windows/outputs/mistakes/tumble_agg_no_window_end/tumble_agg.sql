SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: grouped by window_start without window_end (MAX(window_end) hides it): a regular aggregation over
-- the TVF's rows, which updates its groups instead of emitting each window once.
SELECT window_start, MAX(window_end) AS window_end, shop, COUNT(*) AS orders, SUM(amount) AS revenue
FROM TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES)
GROUP BY window_start, shop;
