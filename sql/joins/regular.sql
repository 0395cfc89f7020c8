SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- A regular join has no time condition: it keeps both sides forever and matches past and future rows alike,
-- so a user who signs up after the order still joins; u41-u44 are not in users and drop out.
SELECT u.tier, COUNT(*) AS orders, SUM(o.amount) AS amount
FROM orders o
JOIN users u ON o.user_id = u.user_id
GROUP BY u.tier;
