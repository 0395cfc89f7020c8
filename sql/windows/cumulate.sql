SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- CUMULATE(step, size): windows that start on the hour and grow by 10 minutes, six per hour.
SELECT window_start, window_end, COUNT(*) AS orders, SUM(amount) AS revenue
FROM CUMULATE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES, INTERVAL '1' HOUR)
GROUP BY window_start, window_end;
