module github.com/skillsd/skillsd/tests

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/skillsd/skillsd/gateways/mcp v0.0.0
	github.com/skillsd/skillsd/gateways/rest v0.0.0
	github.com/skillsd/skillsd/proto v0.0.0
	github.com/skillsd/skillsd/services/skills v0.0.0
	google.golang.org/genproto/googleapis/rpc v0.0.0-20261005182115-fad411399dd8
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/blevesearch/snowballstem v0.9.0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/grpc-ecosystem/grpc-gateway/v2 v2.32.0 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/net v0.61.0 // indirect
	golang.org/x/oauth2 v0.36.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	golang.org/x/time v0.15.0 // indirect
	google.golang.org/genproto/googleapis/api v0.0.0-20261012220534-4341edf3f941 // indirect
)

replace (
	github.com/skillsd/skillsd/clients/go => ../clients/go
	github.com/skillsd/skillsd/gateways/mcp => ../gateways/mcp
	github.com/skillsd/skillsd/gateways/rest => ../gateways/rest
	github.com/skillsd/skillsd/proto => ../proto
	github.com/skillsd/skillsd/services/skills => ../services/skills
)
