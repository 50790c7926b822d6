-- +goose Up
-- +goose StatementBegin
CREATE TABLE leases (
    id          TEXT PRIMARY KEY,
    worker      TEXT,
    expires_at  TIMESTAMPTZ NOT NULL
);
-- +goose StatementEnd

-- +goose Down
DROP TABLE leases;
