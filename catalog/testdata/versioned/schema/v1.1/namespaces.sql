ALTER TABLE namespaces ADD COLUMN notification_version BIGINT NOT NULL DEFAULT 0;
