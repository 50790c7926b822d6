ALTER TABLE authors ADD COLUMN version integer NOT NULL DEFAULT 1;
ALTER TABLE authors ADD CONSTRAINT authors_name_key UNIQUE (name);
