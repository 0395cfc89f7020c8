CREATE TABLE orders (id INT, amount DOUBLE, ts TIMESTAMP(3), WATERMARK FOR ts AS ts - INTERVAL '1' SECOND)
  WITH ('connector' = 'datagen', 'rows-per-second' = '5');
CREATE TABLE small (k STRING, v INT)
  WITH ('connector' = 'datagen', 'number-of-rows' = '30', 'fields.k.length' = '1');
CREATE TABLE sink (k STRING, n BIGINT) WITH ('connector' = 'blackhole');
