SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: step and size swapped.
SELECT window_start, window_end, COUNT(*) AS orders, SUM(amount) AS revenue
FROM CUMULATE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '1' HOUR, INTERVAL '10' MINUTES)
GROUP BY window_start, window_end;
