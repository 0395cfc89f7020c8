SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: a 15-minute size.
SELECT window_start, window_end, COUNT(*) AS orders
FROM HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTES, INTERVAL '15' MINUTES)
GROUP BY window_start, window_end;
