SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: slide and size swapped (size first).
SELECT window_start, window_end, COUNT(*) AS orders
FROM HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES, INTERVAL '5' MINUTES)
GROUP BY window_start, window_end;
