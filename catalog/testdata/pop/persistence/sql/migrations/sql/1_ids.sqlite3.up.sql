CREATE TABLE identities (id TEXT PRIMARY KEY, nid TEXT, sqlite_only TEXT);
