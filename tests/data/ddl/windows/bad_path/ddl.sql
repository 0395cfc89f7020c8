-- The windows lab's source table: 119 orders from five shops, sorted by order_time.
-- WATERMARK FOR order_time AS order_time: the file is in time order, so no row is late, and the end of the file
-- pushes the watermark to the end of time, which closes (and emits) every window.
CREATE TABLE orders (
  order_id   INT,
  shop       STRING,
  amount     DECIMAL(10, 2),
  order_time TIMESTAMP(3),
  WATERMARK FOR order_time AS order_time
) WITH (
  'connector' = 'filesystem',
  'path' = '/tmp/pytest-of-root/pytest-18/live0/data/windows_order.csv',
  'format' = 'csv'
);
