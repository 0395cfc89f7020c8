SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

CREATE TEMPORARY VIEW rates_v AS
SELECT currency, rate, update_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rn
  FROM rates)
WHERE rn = 1;

-- MISTAKE: FOR SYSTEM_TIME AS OF kept: each order at the rate of its time, not at the currency's last rate.
SELECT o.currency, COUNT(*) AS orders, SUM(o.amount * r.rate) AS total_krw
FROM orders o
JOIN rates_v FOR SYSTEM_TIME AS OF o.order_time AS r ON o.currency = r.currency
GROUP BY o.currency;
