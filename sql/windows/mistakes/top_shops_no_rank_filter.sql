SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: no rn filter, so every shop of each window is ranked and kept.
SELECT window_start, window_end, shop, revenue, orders, rn
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY revenue DESC) AS rn
  FROM (
    SELECT window_start, window_end, shop, SUM(amount) AS revenue, COUNT(*) AS orders
    FROM TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES)
    GROUP BY window_start, window_end, shop
  )
);
