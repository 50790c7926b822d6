ALTER TABLE identities ADD COLUMN updated_at TIMESTAMP;
