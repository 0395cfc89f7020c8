-- The joins lab's four sources: CSV files without header, each sorted by its own time column.
-- Watermarks without delay are enough because no file has an out-of-order row.
CREATE TABLE users (
  user_id STRING,
  tier STRING,
  signup_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'file:///tmp/pytest-of-root/pytest-28/live0/data/joins_users.csv',
  'format' = 'csv'
);

CREATE TABLE orders (
  order_id STRING,
  user_id STRING,
  currency STRING,
  amount DECIMAL(10, 2),
  order_time TIMESTAMP(3)
) WITH (
  'connector' = 'filesystem',
  'path' = 'file:///tmp/pytest-of-root/pytest-28/live0/data/joins_orders.csv',
  'format' = 'csv'
);

CREATE TABLE shipments (
  ship_id STRING,
  order_id STRING,
  ship_time TIMESTAMP(3),
  WATERMARK FOR ship_time AS ship_time
) WITH (
  'connector' = 'filesystem',
  'path' = 'file:///tmp/pytest-of-root/pytest-28/live0/data/joins_shipments.csv',
  'format' = 'csv'
);

CREATE TABLE rates (
  currency STRING,
  rate DECIMAL(10, 4),
  update_time TIMESTAMP(3),
  WATERMARK FOR update_time AS update_time
) WITH (
  'connector' = 'filesystem',
  'path' = 'file:///tmp/pytest-of-root/pytest-28/live0/data/joins_rates.csv',
  'format' = 'csv'
);
