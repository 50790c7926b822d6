CREATE TABLE selfservice_errors (id TEXT PRIMARY KEY, errors TEXT);
