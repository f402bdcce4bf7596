#!/bin/sh
# Runs once on an empty data directory: a small "sales" schema and the SELECT-only role sqloop connects as.
set -eu
pw="$(cat /run/secrets/warehouse_password)"
psql -v ON_ERROR_STOP=1 -U "$POSTGRES_USER" -d "$POSTGRES_DB" -v pw="$pw" <<'SQL'
CREATE SCHEMA sales;
CREATE TABLE sales.customers (id int PRIMARY KEY, name text NOT NULL, country text NOT NULL);
CREATE TABLE sales.orders (id int PRIMARY KEY, customer_id int REFERENCES sales.customers, ordered_at date NOT NULL, amount numeric(12,2) NOT NULL);
INSERT INTO sales.customers VALUES (1, 'Acme', 'DE'), (2, 'Globex', 'US'), (3, 'Initech', 'US');
INSERT INTO sales.orders VALUES (1, 1, '2026-01-05', 120.00), (2, 2, '2026-01-06', 80.50), (3, 2, '2026-02-01', 42.00), (4, 3, '2026-02-11', 310.25);
CREATE ROLE sqloop_ro LOGIN PASSWORD :'pw';
GRANT CONNECT ON DATABASE warehouse TO sqloop_ro;
GRANT USAGE ON SCHEMA sales TO sqloop_ro;
GRANT SELECT ON ALL TABLES IN SCHEMA sales TO sqloop_ro;
ALTER ROLE sqloop_ro SET default_transaction_read_only = on;
ALTER ROLE sqloop_ro SET search_path = sales;
SQL
