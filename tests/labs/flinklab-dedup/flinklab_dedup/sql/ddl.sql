-- The dedup lab's source: every delivery of an at-least-once event stream (a retry repeats an event later).
CREATE TABLE events (
  event_id STRING,
  user_id  STRING,
  action   STRING,
  ts       TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = '/opt/lab/fixtures/data/dedup_events.csv',
  'format' = 'csv'
);
