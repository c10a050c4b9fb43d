package tests

import "testing"

// FuzzTileAsmVerify reads arbitrary text as a tile-asm program and verifies
// it against its target: per-tile runs of any range and value, addresses
// past the end of memory, lifetimes of any length and support memory of any
// size must meet a diagnostic, never a panic or an allocation the text does
// not justify.
func FuzzTileAsmVerify(f *testing.F) {
	addFiles(f, "tileasm/ops.ipuir", "tileasm/invalid.ipuir", "tileasm/lower-placement.ipuir")
	f.Add(`#rows = #tiled.layout<order = row_major, tile_count = 2, axes = [{axis = -2, partitions = 2}], memory_class = Test16Standard>
module attributes {ipu.target = "test16"} {
  func.func @f() {
    %x = tileasm.buffer "x" {live = array<i64: 0, 9223372036854775807>, placement = #tileasm.per_tile<[[0, 1073741824, 9223372036854775800]]>} : tensor<4x8xf16, #rows>
    tileasm.vector exp %x, %x {superstep = 0 : i64} : tensor<4x8xf16, #rows>, tensor<4x8xf16, #rows>
    tileasm.memory {code_bytes = #tileasm.per_tile<[[0, 1073741824, 9223372036854775807]]>, exchange_table_bytes = #tileasm.per_tile<[[0, 1, 9223372036854775807]]>,
                    host_code_bytes = #tileasm.per_tile<[]>, support = #tileasm.per_tile<[[0, 1, 0]]>}
    return
  }
}`)
	f.Fuzz(verifyText)
}
