ALTER TABLE executions DROP COLUMN db_record_version;
