SET 'sql-client.execution.result-mode' = 'tableau';
-- Batch: the result is the final counts only, without an op column.
SET 'execution.runtime-mode' = 'batch';

SELECT 'users' AS tbl, COUNT(*) AS n FROM users
UNION ALL SELECT 'orders', COUNT(*) FROM orders
UNION ALL SELECT 'shipments', COUNT(*) FROM shipments
UNION ALL SELECT 'rates', COUNT(*) FROM rates;
