// Package config reads dsqllint's configuration file, .dsqllint.yaml at
// the module root, and finds that root.
//
// The file's keys are the analyzer's flag names (dsql-version,
// fence-columns, disable, retry-funcs, migration-tx, schema, ...) plus
// exclude, a list of paths (and optionally rules) whose findings are
// dropped. Every driver — the dsqllint command, go vet -vettool and the
// golangci-lint plugin — reads it the same way, through the analyzer;
// flags and golangci-lint settings override what the file says.
//
// YAML because the files beside it are YAML (.golangci.yml, sqlc.yaml,
// GitHub workflows): comments are allowed and lists read naturally.
package config
