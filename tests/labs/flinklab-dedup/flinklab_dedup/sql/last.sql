SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'batch';

-- Keep-last: each user's deliveries newest first; the first of them is the latest action.
SELECT user_id, action, ts
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY user_id ORDER BY ts DESC) AS rn
  FROM events
)
WHERE rn = 1;
