SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: grouped by window_start without window_end (MAX(window_end) hides it), under the Top-N.
SELECT window_start, window_end, shop, revenue, orders, rn
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY window_start, window_end ORDER BY revenue DESC) AS rn
  FROM (
    SELECT window_start, MAX(window_end) AS window_end, shop, SUM(amount) AS revenue, COUNT(*) AS orders
    FROM TUMBLE(TABLE orders, DESCRIPTOR(order_time), INTERVAL '10' MINUTES)
    GROUP BY window_start, shop
  )
)
WHERE rn <= 2;
