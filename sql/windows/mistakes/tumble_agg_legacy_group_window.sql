SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: the legacy Grouped Window Functions (GROUP BY TUMBLE(time, size)), which window TVFs replace; the rows
-- and the insert-only changelog are the same, the lesson is not.
SELECT TUMBLE_START(order_time, INTERVAL '10' MINUTE) AS window_start,
       TUMBLE_END(order_time, INTERVAL '10' MINUTE) AS window_end,
       shop, COUNT(*) AS orders, SUM(amount) AS revenue
FROM orders
GROUP BY TUMBLE(order_time, INTERVAL '10' MINUTE), shop;
