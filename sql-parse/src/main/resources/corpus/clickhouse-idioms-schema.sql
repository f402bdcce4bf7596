-- The database clickhouse-idioms.jsonl runs on (each statement ends with ';' at the end of a line): ClickHouseIdiomsIT
-- (validator) and ChdbExecutorIT (executor) create it on chDB.
CREATE DATABASE IF NOT EXISTS idioms;
CREATE OR REPLACE TABLE idioms.events (id UInt64, user_id UInt32, ts DateTime, event_date Date, kind LowCardinality(String),
    amount Float64, tags Array(String), scores Array(UInt32), props Map(String, String), point Tuple(x Float64, y Float64),
    version UInt32) ENGINE = ReplacingMergeTree(version) ORDER BY (user_id, intHash32(id)) SAMPLE BY intHash32(id);
CREATE OR REPLACE TABLE idioms.users (id UInt32, name String, country String, signup Date) ENGINE = MergeTree ORDER BY id;
CREATE OR REPLACE TABLE idioms.prices (symbol String, ts DateTime, price Float64) ENGINE = MergeTree ORDER BY (symbol, ts);
CREATE OR REPLACE TABLE idioms.trades (symbol String, ts DateTime, qty UInt32) ENGINE = MergeTree ORDER BY (symbol, ts);
INSERT INTO idioms.users VALUES (1, 'ada', 'FR', '2023-01-01'), (2, 'bob', 'DE', '2023-05-01'), (3, 'Alice', 'FR', '2024-01-01');
INSERT INTO idioms.events SELECT number, 1 + number % 3, toDateTime('2024-01-01 00:00:00') + number * 3600,
    toDate('2024-01-01') + intDiv(number, 24), ['view', 'click', 'buy'][1 + number % 3], number * 1.5, ['a', 'b', ''],
    [toUInt32(number), 2], map('source', 'web'), (1.0, 2.0), 1 FROM numbers(100);
INSERT INTO idioms.prices VALUES ('X', '2024-01-01 00:00:00', 1.0), ('X', '2024-01-02 00:00:00', 2.0);
INSERT INTO idioms.trades VALUES ('X', '2024-01-01 12:00:00', 5);
