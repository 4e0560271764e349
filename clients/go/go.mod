module github.com/skillsd/skillsd/clients/go

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/skillsd/skillsd/proto v0.0.0
	github.com/skillsd/skillsd/services/skills v0.0.0
	golang.org/x/sys v0.48.0
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/blevesearch/snowballstem v0.9.0 // indirect
	go.yaml.in/yaml/v3 v3.0.6 // indirect
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/text v0.42.0 // indirect
)

replace (
	github.com/skillsd/skillsd/proto => ../../proto
	github.com/skillsd/skillsd/services/skills => ../../services/skills
)
