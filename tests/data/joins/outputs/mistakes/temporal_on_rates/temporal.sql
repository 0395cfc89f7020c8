SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: FOR SYSTEM_TIME AS OF on rates itself: an append-only table without a primary key has no versions
-- (the lab's rates_v, the latest row per currency, is the versioned view).
SELECT o.order_id, o.currency, r.rate, o.amount * r.rate AS amount_krw
FROM orders o
JOIN rates FOR SYSTEM_TIME AS OF o.order_time AS r
  ON o.currency = r.currency;
