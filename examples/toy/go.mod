module example.com/toy

go 1.26.8

require github.com/ipuir/ipuir v0.0.0

require (
	github.com/alecthomas/participle/v2 v2.1.4 // indirect
	github.com/dustin/go-humanize v1.1.0 // indirect
	github.com/spf13/pflag v1.1.0 // indirect
)

// The project this example extends, from the folder above; a user's own
// module points at a released version instead.
replace github.com/ipuir/ipuir => ../..
