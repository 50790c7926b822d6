-- A file the parser rejects: replay goes on past it.
CREATE TABLE broken (id int,, );
ALTER TABLE app.users ADD COLUMN deleted_at timestamptz;
