-- migrate:up transaction:false
CREATE TABLE orders (
    id uuid PRIMARY KEY,
    account_id bigint NOT NULL,
    placed_at timestamptz NOT NULL
) PARTITION BY RANGE (placed_at); -- want `DSQL106 unsupported-table-feature: PARTITION BY`
CREATE INDEX ASYNC orders_account ON orders (account_id);
CREATE SEQUENCE order_no; -- want `DSQL102 sequence-cache: CREATE SEQUENCE without an explicit CACHE`

-- migrate:down
DROP SEQUENCE order_no;
DROP TABLE orders; -- want@file `DSQL104 ddl-transaction: DROP TABLE runs in the same migration transaction .* as the DROP SEQUENCE on line 11`
