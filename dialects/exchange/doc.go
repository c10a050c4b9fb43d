// Package exchange is the exchange dialect: the tiled program as BSP
// supersteps. Compute stays in the tiled dialect's local ops, each run by
// the tiles of its result's layout (its compute set); every movement of
// data between tiles is an exchange.phase after an exchange.sync, holding
// its transfers (#exchange.transfers: source tile, destination tiles,
// words, and the elements each carries) and its schedule
// (#exchange.schedule: segments of consecutive words at compile-time
// cycles, from package schedule). It is step 3 of the lowering
// pipeline; conversion/tiledtoexchange lowers to it, and
// translate/exchangejson writes a program's phases in the JSON form users'
// tools read.
package exchange
