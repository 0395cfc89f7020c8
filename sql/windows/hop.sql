SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- HOP(slide, size): a 10-minute window every 5 minutes, so every order is counted in two windows.
SELECT window_start, window_end, COUNT(*) AS orders
FROM HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTES, INTERVAL '10' MINUTES)
GROUP BY window_start, window_end;
