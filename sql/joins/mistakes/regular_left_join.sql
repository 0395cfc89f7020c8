SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: a LEFT join keeps the orders of u41-u44 (not in users) under a NULL tier.
SELECT u.tier, COUNT(*) AS orders, SUM(o.amount) AS amount
FROM orders o
LEFT JOIN users u ON o.user_id = u.user_id
GROUP BY u.tier;
