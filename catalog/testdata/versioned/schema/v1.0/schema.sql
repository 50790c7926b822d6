CREATE TABLE namespaces (partition_id INTEGER NOT NULL, id BYTEA NOT NULL, name VARCHAR(255) UNIQUE NOT NULL, PRIMARY KEY (partition_id, id));
