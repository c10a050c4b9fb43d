package ipuir
import (
 _ "github.com/alecthomas/participle/v2"
 _ "github.com/spf13/pflag"
 _ "github.com/google/go-cmp/cmp"
 _ "github.com/sebdah/goldie/v2"
 _ "golang.org/x/tools/txtar"
 _ "github.com/x448/float16"
)
