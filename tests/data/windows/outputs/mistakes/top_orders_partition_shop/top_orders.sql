SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: ROW_NUMBER partitioned by shop as well as the window: the 3 largest orders of each shop per window.
SELECT window_start, window_end, order_id, shop, amount, order_time, rn
FROM (
  SELECT order_id, shop, amount, order_time, window_start, window_end,
         ROW_NUMBER() OVER (PARTITION BY window_start, window_end, shop ORDER BY amount DESC) AS rn
  FROM TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '30' MINUTES)
)
WHERE rn <= 3;
