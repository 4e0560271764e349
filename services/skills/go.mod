module github.com/skillsd/skillsd/services/skills

go 1.26.0

require github.com/skillsd/skillsd/proto v0.0.0

require (
	github.com/blevesearch/snowballstem v0.9.0
	github.com/google/go-cmp v0.7.0
	go.yaml.in/yaml/v3 v3.0.6
	golang.org/x/net v0.60.0 // indirect
	golang.org/x/sys v0.48.0 // indirect
	golang.org/x/text v0.42.0
	google.golang.org/genproto/googleapis/rpc v0.0.0-20260817212433-ac3dfec99bb1
	google.golang.org/grpc v1.85.0
	google.golang.org/protobuf v1.36.12
)

replace github.com/skillsd/skillsd/proto => ../../proto
