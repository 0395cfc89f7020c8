SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'streaming';

-- MISTAKE: a time condition on signup_time: a regular join needs none, and this one drops the orders placed
-- before their user signed up.
SELECT u.tier, COUNT(*) AS orders, SUM(o.amount) AS amount
FROM orders o
JOIN users u ON o.user_id = u.user_id AND u.signup_time <= o.order_time
GROUP BY u.tier;
