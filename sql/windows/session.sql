SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Sessions per shop: orders at most 5 minutes apart belong together; a session ends 5 minutes after its last order.
-- SESSION windows work in streaming mode only.
SELECT shop, window_start, window_end, COUNT(*) AS orders
FROM SESSION(TABLE orders PARTITION BY shop, DESCRIPTOR(order_time), INTERVAL '5' MINUTES)
GROUP BY shop, window_start, window_end;
