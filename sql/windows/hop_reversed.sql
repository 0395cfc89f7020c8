SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- The same aggregation with slide and size swapped: Flink rejects it before the job starts.
SELECT window_start, window_end, COUNT(*) AS orders
FROM HOP(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES, INTERVAL '5' MINUTES)
GROUP BY window_start, window_end;
