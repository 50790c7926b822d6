module github.com/dsqllint/dsqllint

go 1.25.0

require (
	github.com/aymanbagabas/go-udiff v0.4.1
	github.com/golangci/plugin-module-register v0.1.2
	github.com/jackc/pgx/v5 v5.12.0
	github.com/pganalyze/pg_query_go/v6 v6.2.5
	github.com/prometheus/client_golang v1.24.1
	github.com/wasilibs/go-pgquery v0.0.0-20260728010200-155ebad2880e
	go.yaml.in/yaml/v3 v3.0.4
	golang.org/x/mod v0.39.0
	golang.org/x/tools v0.49.0
	google.golang.org/protobuf v1.36.11
)

require (
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dsqllint/dsqllint/internal/pgtest v0.0.0
	github.com/dsqllint/dsqllint/runtime v0.0.0
	github.com/dsqllint/dsqllint/runtime/occpgx v0.0.0
	github.com/dsqllint/dsqllint/runtime/occprom v0.0.0
	github.com/jackc/pgpassfile v1.0.0 // indirect
	github.com/jackc/pgservicefile v0.0.0-20240606120523-5a60cdf6a761 // indirect
	github.com/jackc/puddle/v2 v2.2.3 // indirect
	github.com/kr/text v0.2.0 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/prometheus/client_model v0.6.2 // indirect
	github.com/prometheus/common v0.70.1 // indirect
	github.com/prometheus/procfs v0.21.1 // indirect
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	github.com/tetratelabs/wazero v1.12.0 // indirect
	github.com/wasilibs/wazero-helpers v0.0.0-20250123031827-cd30c44769bb // indirect
	golang.org/x/sync v0.22.0 // indirect
	golang.org/x/sys v0.47.0 // indirect
	golang.org/x/text v0.41.0 // indirect
)
