ALTER TABLE executions ADD COLUMN db_record_version BIGINT NOT NULL DEFAULT 0;
CREATE UNIQUE INDEX ASYNC records_dns_name ON records (dns_name);
