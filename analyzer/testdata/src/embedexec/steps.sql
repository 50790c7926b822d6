CREATE TABLE audit (id uuid PRIMARY KEY, at timestamptz);
CREATE INDEX ASYNC audit_at_idx ON audit (at)
