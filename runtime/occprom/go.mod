module github.com/dsqllint/dsqllint/runtime/occprom

go 1.22

require (
	github.com/dsqllint/dsqllint/runtime v0.0.0
	github.com/prometheus/client_golang v1.0.0
)

require (
	github.com/beorn7/perks v1.0.0 // indirect
	github.com/golang/protobuf v1.3.1 // indirect
	github.com/matttproud/golang_protobuf_extensions v1.0.1 // indirect
	github.com/prometheus/client_model v0.0.0-20190129233127-fd36f4220a90 // indirect
	github.com/prometheus/common v0.4.1 // indirect
	github.com/prometheus/procfs v0.0.2 // indirect
	golang.org/x/sys v0.0.0-20181116152217-5ac8a444bdc5 // indirect
)
