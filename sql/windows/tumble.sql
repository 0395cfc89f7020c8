SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- The raw TUMBLE TVF: every order once, with the three window columns added.
SELECT order_id, shop, amount, order_time, window_start, window_end, window_time
FROM TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES);
