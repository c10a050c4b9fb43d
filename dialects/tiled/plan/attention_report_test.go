package plan

import (
	"fmt"
	"os"
	"testing"
	"log/slog"

	"github.com/ipuir/ipuir/target"
)

func TestAttentionReport(t *testing.T) {
	tg, _ := target.Lookup("ipu21")
	log := slog.New(slog.NewTextHandler(os.Stderr, nil))
	ch, err := PlanProgram(attentionProgram(), tg, Options{Logger: log})
	if err != nil {
		t.Fatal(err)
	}
	total := int64(0)
	for _, c := range ch {
		fmt.Printf("%-10s %8d  %s\n    %+v\n", c.Name, c.Estimate.Cycles, c.Plan.String(), c.Estimate)
		total += c.Estimate.Cycles
	}
	fmt.Println("total", total)
}
