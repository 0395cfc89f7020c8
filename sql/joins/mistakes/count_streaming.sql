SET 'sql-client.execution.result-mode' = 'tableau';
-- MISTAKE: no SET 'execution.runtime-mode' = 'batch': the default is streaming.

SELECT 'users' AS tbl, COUNT(*) AS n FROM users
UNION ALL SELECT 'orders', COUNT(*) FROM orders
UNION ALL SELECT 'shipments', COUNT(*) FROM shipments
UNION ALL SELECT 'rates', COUNT(*) FROM rates;
