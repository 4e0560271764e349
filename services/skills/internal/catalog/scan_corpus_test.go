package catalog

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/skillsd/skillsd/services/skills/internal/scan"
	"github.com/skillsd/skillsd/services/skills/internal/source"
)

func TestCorpusScanDump(t *testing.T) {
	if os.Getenv("SCAN_DUMP") == "" {
		t.Skip("set SCAN_DUMP")
	}
	root := corpusRoot(t)
	sc, err := scan.New(scan.Options{Open: source.Open, Policy: scan.Policy{Quarantine: scan.Off}})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Build(t.Context(), []*source.Root{root}, Options{Scan: sc})
	if err != nil {
		t.Fatal(err)
	}
	min, _ := scan.ParseSeverity(os.Getenv("SCAN_DUMP"))
	flagged := 0
	counts := map[string]int{}
	for _, sk := range snap.Skills() {
		hit := false
		for _, f := range sk.Security.Findings {
			counts[f.Rule+" "+f.Severity.String()]++
			if f.Severity >= min {
				fmt.Printf("%s\t%s\t%s:%d\t%.300s\n", sk.Path, f.Severity, f.File, f.Line, f.Message)
				hit = true
			}
		}
		if hit {
			flagged++
		}
	}
	var keys []string
	for k := range counts {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	fmt.Println(strings.Repeat("-", 40))
	for _, k := range keys {
		fmt.Println(counts[k], k)
	}
	fmt.Printf("%d of %d skills flagged at %s or above\n", flagged, snap.Len(), min)
}
