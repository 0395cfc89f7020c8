SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: a 30-minute size (windows restart at half past).
SELECT window_start, window_end, COUNT(*) AS orders, SUM(amount) AS revenue
FROM CUMULATE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES, INTERVAL '30' MINUTES)
GROUP BY window_start, window_end;
