// Package plan is the GEMM planner: for each matmul it enumerates candidate
// #tiled.gemm_plans, prunes them with lower bounds, costs the rest on the
// target's cost model, keeps the best K as finalists, verifies each with the
// dialect's own verifier (tiled.VerifyPlan: layouts, shard-view containment,
// tile memory) and picks the cheapest feasible one.
//
// It works on a Program — the matmuls of a function with where each operand
// comes from — rather than on IR, so that the planning rules can be tested
// and benchmarked on their own (the attention block of examples/attention.ipuir is a
// Program in attention_test.go) and the plan-gemms pass only translates.
//
// The cost of a plan is its busiest tile's time through the BSP supersteps
// the plan implies (cost.go): operands exchanged in (one word per tile per
// cycle each way), the AMP work (target.AMPCycles, PopLibs' conv-partials vertex), partial sums
// exchanged and added, one sync per exchange phase. Resident operands
// (weights and constants, placed at load time) and operands already in the
// wanted distribution cost no exchange. Matmuls planned earlier leave their
// results, and the layouts their operands were exchanged into, available to
// later ones, so that a chain of matmuls can agree on layouts; matmuls that
// share an operand and a shape are chosen together (select.go).
//
// Structured log lines go through log/slog in the reference log's terms:
// "applied GEMM plan constraint", "retained operator-plan finalist",
// "rejected infeasible operator-plan finalist", "selected operator-plan
// finalist".
package plan
