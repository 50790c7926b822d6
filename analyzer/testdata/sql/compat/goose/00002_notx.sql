-- +goose NO TRANSACTION
-- +goose Up
CREATE INDEX ASYNC accounts_updated ON accounts (updated_at);
CREATE INDEX ASYNC accounts_balance ON accounts (email, updated_at);

-- +goose Down
DROP INDEX accounts_balance;
DROP INDEX accounts_updated;
