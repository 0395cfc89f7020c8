SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

CREATE TEMPORARY VIEW rates_v AS
SELECT currency, rate, update_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rn
  FROM rates)
WHERE rn = 1;

-- MISTAKE: without FOR SYSTEM_TIME AS OF this is a regular join: every order ends at the latest rate.
SELECT o.order_id, o.currency, r.rate, o.amount * r.rate AS amount_krw
FROM orders o
JOIN rates_v r
  ON o.currency = r.currency;
