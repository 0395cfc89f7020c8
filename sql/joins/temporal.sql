SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- rates is append-only and has no primary key; keeping the latest row per currency makes a versioned view
-- (currency is its key, update_time its event time).
CREATE TEMPORARY VIEW rates_v AS
SELECT currency, rate, update_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rn
  FROM rates)
WHERE rn = 1;

-- Each order meets the version valid at its order_time (update_time <= order_time); orders before the first
-- rate of their currency have no version and drop out.
SELECT o.order_id, o.currency, r.rate, o.amount * r.rate AS amount_krw
FROM orders o
JOIN rates_v FOR SYSTEM_TIME AS OF o.order_time AS r
  ON o.currency = r.currency;
