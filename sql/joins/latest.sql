SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

CREATE TEMPORARY VIEW rates_v AS
SELECT currency, rate, update_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rn
  FROM rates)
WHERE rn = 1;

-- Without FOR SYSTEM_TIME AS OF this is a regular join: every rate change retracts and recomputes past orders,
-- and the final totals are at each currency's last rate.
SELECT o.currency, COUNT(*) AS orders, SUM(o.amount * r.rate) AS total_krw
FROM orders o
JOIN rates_v r ON o.currency = r.currency
GROUP BY o.currency;
