-- golang-migrate runs the file as one Exec call: one transaction.
CREATE TABLE users (
    id uuid PRIMARY KEY DEFAULT gen_random_uuid(),
    org_id uuid REFERENCES orgs (id),
    email text NOT NULL,
    prefs jsonb,
    created_at timestamptz NOT NULL DEFAULT now()
);

CREATE UNIQUE INDEX ASYNC users_email ON users (email); -- want@file `DSQL104 ddl-transaction: CREATE INDEX runs in the same migration transaction .* as the CREATE TABLE on line 2`

GRANT SELECT ON users TO reporting; -- want@file `DSQL104 ddl-transaction: GRANT runs`

INSERT INTO users (email) VALUES ('admin@example.com'); -- want@file `DSQL104 ddl-transaction: INSERT runs .* \(0A000 ddl and dml are not supported in the same transaction\)`
