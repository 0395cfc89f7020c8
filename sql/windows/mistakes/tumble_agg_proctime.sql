SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: windows over a processing-time attribute (PROCTIME()) instead of the event time order_time.
CREATE TEMPORARY VIEW orders_pt AS SELECT *, PROCTIME() AS proc_time FROM orders;

SELECT window_start, window_end, shop, COUNT(*) AS orders, SUM(amount) AS revenue
FROM TUMBLE(TABLE orders_pt, DESCRIPTOR(proc_time), INTERVAL '10' MINUTES)
GROUP BY window_start, window_end, shop;
