// Package transforms holds the passes of the tiled dialect: tiled-estimate,
// which costs every op of a tiled program and summarises the whole.
package transforms
