CREATE TABLE tasks (
  id bigint PRIMARY KEY,
  name text NOT NULL,
  worker text,
  locked_until timestamptz,
  state text NOT NULL
);

CREATE UNIQUE INDEX ASYNC tasks_name_worker ON tasks (name, worker);
