ALTER TABLE namespaces RENAME COLUMN notify_version TO notification_version;
