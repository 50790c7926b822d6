ALTER TABLE namespaces RENAME COLUMN notification_version TO notify_version;
