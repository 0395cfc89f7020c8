SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'batch';

-- The mistake: ORDER BY ts DESC keeps each event's last delivery, where keep-first was asked.
SELECT event_id, user_id, action, ts
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY ts DESC) AS rn
  FROM events
)
WHERE rn = 1;
