-- The schema that the queries of bi_catalog.sql read, on Freshet
-- (TestBICatalog) and on PostgreSQL (bi_catalog_regen.sh). Statements
-- end with a semicolon at the end of a line.
CREATE TABLE customers (id int PRIMARY KEY, name text NOT NULL, region text);
CREATE TABLE orders (id int PRIMARY KEY, customer int NOT NULL, amount numeric(10,2), placed timestamptz, note text DEFAULT 'none');
CREATE VIEW big_orders AS SELECT id, customer, amount FROM orders WHERE amount > 100;
CREATE MATERIALIZED VIEW totals AS SELECT customer, count(*) AS n, sum(amount) AS total FROM orders GROUP BY customer;
CREATE INDEX orders_customer_idx ON orders (customer);
INSERT INTO customers VALUES (1, 'ada', 'north'), (2, 'bob', NULL);
INSERT INTO orders VALUES (1, 1, 10.50, '2024-01-02 03:04:05+00', 'first'), (2, 1, 250.00, '2024-02-10 12:00:00+00', DEFAULT), (3, 2, 99.99, '2024-02-11 08:30:00+00', NULL), (4, 2, 120.00, NULL, 'late');
