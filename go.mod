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
	github.com/aymanbagabas/go-osc52/v2 v2.0.1 // indirect
	github.com/gorilla/websocket v1.5.1 // indirect
	github.com/iancoleman/strcase v0.3.0 // indirect
	github.com/lucasb-eyer/go-colorful v1.2.0 // indirect
	github.com/mattn/go-isatty v0.0.20 // indirect
	github.com/mattn/go-runewidth v0.0.14 // indirect
	github.com/muesli/termenv v0.15.2 // indirect
	github.com/petermattis/goid v0.0.0-20180202154549-b0b1615b78e5 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/pmezard/go-difflib v1.0.0 // indirect
	github.com/rivo/uniseg v0.2.0 // indirect
	github.com/sasha-s/go-deadlock v0.3.1 // indirect
	github.com/sergi/go-diff v1.1.0 // indirect
	github.com/sourcegraph/jsonrpc2 v0.2.0 // indirect
	github.com/tliron/commonlog v0.2.8 // indirect
	github.com/tliron/kutil v0.3.11 // indirect
	golang.org/x/crypto v0.15.0 // indirect
	golang.org/x/net v0.17.0 // indirect
	golang.org/x/sys v0.14.0 // indirect
	golang.org/x/term v0.14.0 // indirect
)
