// Package toolkit is what every ipuir tool does the same way, so that
// ipu-opt, ipu-run, ipu-translate and a user's own tools behave alike:
//
//   - Loader reads a file (or stdin), parses it, states the module's
//     environment (its target) explicitly and verifies it in that
//     environment, with diagnostics rendered as mlir-opt renders them
//     (file:line:col, the source line, a caret);
//   - Outputs is the one rule for the files a run writes: each checked
//     before any work against the inputs and the other outputs, written to
//     a temporary file beside it, and renamed into place with the others
//     only when the whole run succeeds (special files written through);
//     ReadInput reads an input with a bound, refusing devices;
//   - NewLogger builds the structured log (log/slog) that long phases
//     write to stderr, in the reference log's form: `<time> INFO message
//     key=value ...`.
package toolkit
