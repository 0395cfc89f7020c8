SET 'sql-client.execution.result-mode' = 'tableau';
SET 'execution.runtime-mode' = 'batch';

-- Keep-first: number each event's deliveries by time and keep the earliest.
SELECT event_id, user_id, action, ts
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY event_id ORDER BY ts ASC) AS rn
  FROM events
)
WHERE rn = 1;
