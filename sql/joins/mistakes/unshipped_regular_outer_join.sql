SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: the bound is written on TIMESTAMPDIFF, which the planner cannot read as an interval on the time
-- attributes, so this is a regular LEFT join: it emits each order NULL-padded at once and retracts it (-D) when
-- a shipment in time arrives. The changelog folds to the right orders, but it is updating, not append-only.
SELECT o.order_id, o.order_time
FROM orders o
LEFT JOIN shipments s
  ON o.order_id = s.order_id
 AND TIMESTAMPDIFF(SECOND, o.order_time, s.ship_time) BETWEEN 0 AND 7200
WHERE s.ship_id IS NULL;
