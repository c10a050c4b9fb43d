// Package toolkit is what every ipuir tool does the same way, so that
// ipu-opt, ipu-run, ipu-translate and a user's own tools behave alike:
//
//   - Loader reads a file (or stdin), parses it, states the module's
//     environment (its target) explicitly and verifies it in that
//     environment, with diagnostics rendered as mlir-opt renders them
//     (file:line:col, the source line, a caret);
//   - WriteOutput writes a result so that a failed run never leaves a
//     half-written file: the data goes to a temporary file beside the
//     output and is renamed over it only when complete;
//   - NewLogger builds the structured log (log/slog) that long phases
//     write to stderr, in the reference log's form: `<time> INFO message
//     key=value ...`.
package toolkit
