module github.com/ipuir/ipuir

go 1.26.8

require (
	github.com/alecthomas/participle/v2 v2.1.4
	github.com/dustin/go-humanize v1.1.0
	github.com/google/go-cmp v0.7.0
	github.com/sebdah/goldie/v2 v2.8.0
	github.com/spf13/pflag v1.1.0
	github.com/tliron/glsp v0.2.2
	google.golang.org/protobuf v1.36.12
)

require (
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/sergi/go-diff v1.1.0 // indirect
	gopkg.in/yaml.v2 v2.4.0 // indirect
)
