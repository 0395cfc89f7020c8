SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: no PARTITION BY shop in the SESSION TVF, and no shop column at all: sessions across every shop.
SELECT window_start, window_end, COUNT(*) AS orders
FROM SESSION(TABLE orders, DESCRIPTOR(order_time), INTERVAL '5' MINUTES)
GROUP BY window_start, window_end;
