SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- Mistake: a regular GROUP BY on the time floored to 10 minutes instead of the TUMBLE TVF.
SELECT window_start, window_start + INTERVAL '10' MINUTE AS window_end, shop,
       COUNT(*) AS orders, SUM(amount) AS revenue
FROM (
  SELECT shop, amount,
         TIMESTAMPADD(MINUTE, -MOD(EXTRACT(MINUTE FROM order_time), 10), FLOOR(order_time TO MINUTE)) AS window_start
  FROM orders
)
GROUP BY window_start, shop;
