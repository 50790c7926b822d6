CREATE TABLE leases (id text PRIMARY KEY, worker_id text, expires_at timestamptz);
