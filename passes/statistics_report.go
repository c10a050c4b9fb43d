package passes

import (
	"fmt"
	"io"
	"sort"
	"strings"
)

// StatisticsDisplay selects the layout of --mlir-pass-statistics.
type StatisticsDisplay int

const (
	// StatisticsPipeline follows the structure of the pipeline (the default).
	StatisticsPipeline StatisticsDisplay = iota
	// StatisticsList merges the statistics of each pass over the pipeline,
	// sorted by pass name.
	StatisticsList
)

// WriteStatistics writes the pass statistics report as mlir-opt does.
// Counts are those of every run of the pipeline so far.
func (pm *PassManager) WriteStatistics(w io.Writer, display StatisticsDisplay) error {
	var b strings.Builder
	writeReportHeader(&b, "... Pass statistics report ...")
	if display == StatisticsList {
		merged := map[string][]statValue{}
		for _, p := range pm.pipeline.allPasses() {
			stats := statistics(p)
			if len(stats) == 0 {
				continue
			}
			name := DisplayName(p)
			if prev, ok := merged[name]; ok {
				for i := range prev {
					prev[i].value += stats[i].value
				}
			} else {
				merged[name] = stats
			}
		}
		names := make([]string, 0, len(merged))
		for n := range merged {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			writePassEntry(&b, 2, n, merged[n])
		}
	} else {
		var walk func(pm *OpPassManager, indent int)
		walk = func(pm *OpPassManager, indent int) {
			for _, it := range pm.items {
				if it.nested != nil {
					writePassEntry(&b, indent, "'"+it.nested.anchor+"' Pipeline", nil)
					walk(it.nested, indent+2)
					continue
				}
				writePassEntry(&b, indent, DisplayName(it.pass), statistics(it.pass))
			}
		}
		walk(pm.pipeline, 0)
	}
	b.WriteString("\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writePassEntry writes a pass name and its statistics, sorted by name,
// as `(S) <value> <name> - <help>` with aligned columns.
func writePassEntry(b *strings.Builder, indent int, name string, stats []statValue) {
	fmt.Fprintf(b, "%s%s\n", strings.Repeat(" ", indent), name)
	stats = append([]statValue(nil), stats...)
	sort.Slice(stats, func(i, j int) bool { return stats[i].name < stats[j].name })
	nameW, valW := 0, 0
	for _, s := range stats {
		nameW = max(nameW, len(s.name))
		valW = max(valW, len(fmt.Sprint(s.value)))
	}
	for _, s := range stats {
		fmt.Fprintf(b, "%s(S) %*d %-*s - %s\n", strings.Repeat(" ", indent+2), valW, s.value, nameW, s.name, s.help)
	}
}
