SET 'sql-client.execution.result-mode' = 'tableau';
-- COMPILE PLAN works on streaming INSERTs.
SET 'execution.runtime-mode' = 'streaming';

CREATE TEMPORARY VIEW rates_v AS
SELECT currency, rate, update_time FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY currency ORDER BY update_time DESC) AS rn
  FROM rates)
WHERE rn = 1;

CREATE TABLE regular_sink (order_id STRING, tier STRING, amount DECIMAL(10, 2))
WITH ('connector' = 'blackhole');
CREATE TABLE interval_sink (order_id STRING, ship_id STRING, delay_s INT)
WITH ('connector' = 'blackhole');
CREATE TABLE temporal_sink (order_id STRING, currency STRING, rate DECIMAL(10, 4), amount_krw DECIMAL(20, 6))
WITH ('connector' = 'blackhole');

-- COMPILE PLAN refuses to overwrite a file: delete an old plan before running this again.
COMPILE PLAN 'file:///root/flink/joins/regular-plan.json' FOR
INSERT INTO regular_sink
SELECT o.order_id, u.tier, o.amount
FROM orders o
JOIN users u ON o.user_id = u.user_id;

-- MISTAKE: the time condition is gone: the interval plan holds a regular join.
COMPILE PLAN 'file:///root/flink/joins/interval-plan.json' FOR
INSERT INTO interval_sink
SELECT o.order_id, s.ship_id, TIMESTAMPDIFF(SECOND, o.order_time, s.ship_time)
FROM orders o
JOIN shipments s
  ON o.order_id = s.order_id;

COMPILE PLAN 'file:///root/flink/joins/temporal-plan.json' FOR
INSERT INTO temporal_sink
SELECT o.order_id, o.currency, r.rate, o.amount * r.rate
FROM orders o
JOIN rates_v FOR SYSTEM_TIME AS OF o.order_time AS r
  ON o.currency = r.currency;
