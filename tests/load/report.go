package load

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"text/tabwriter"
	"time"
)

// Write prints the report as a table.
func (r *Report) Write(w io.Writer) error {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintf(w, "bench-load: %v at concurrency %d (half gRPC, half REST; searches and gets in equal parts)\n", r.Duration, r.Concurrency)
	fmt.Fprintf(w, "catalog: %d skills before; %d..%d during the load; %d edits each followed by RefreshSkills (%d failed); generation %d -> %d\n",
		r.Skills, r.MinSkills, r.MaxSkills, r.Rebuilds, r.RebuildErrors, r.FirstGeneration, r.LastGeneration)
	fmt.Fprintln(tw, "surface\top\tcalls\terrors\tcalls/s\tp50\tp99\tmax\tempty searches\t")
	for _, s := range r.Stats {
		op := string(s.Op)
		if op == "" {
			op = "all"
		}
		empty := ""
		if s.Op != Get {
			empty = strconv.Itoa(s.Empty)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%.0f\t%s\t%s\t%s\t%s\t\n", s.Surface, op, s.Calls, s.Errors, s.PerSecond, ms(s.P50), ms(s.P99), ms(s.Max), empty)
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, m := range r.Memory {
		fmt.Fprintf(w, "RSS %s (pid %d): before %s, after %s, peak %s\n", m.Name, m.PID, mib(m.Before), mib(m.After), mib(m.Peak))
	}
	fmt.Fprintf(w, "load average (1, 5, 15 min): before %s, after %s\n", r.LoadBefore, r.LoadAfter)
	fmt.Fprintf(w, "machine: %s\n", Machine())
	for _, e := range r.ErrorSamples {
		fmt.Fprintln(w, "error:", e)
	}
	_, err := fmt.Fprintf(w, "errors: %d\n", r.Errors())
	return err
}

func ms(d time.Duration) string {
	return strconv.FormatFloat(float64(d.Microseconds())/1000, 'f', 2, 64) + " ms"
}

func mib(b int64) string {
	if b == 0 {
		return "n/a"
	}
	return strconv.FormatFloat(float64(b)/(1<<20), 'f', 1, 64) + " MiB"
}

// RSS reads a memory field of /proc/PID/status in bytes: VmRSS (resident
// now) or VmHWM (the peak); 0 when it cannot be read (not Linux, process
// gone).
func RSS(pid int, field string) int64 {
	f, err := os.Open(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		name, value, ok := strings.Cut(sc.Text(), ":")
		if !ok || name != field {
			continue
		}
		fields := strings.Fields(value) // "12345 kB"
		if len(fields) != 2 || fields[1] != "kB" {
			return 0
		}
		kb, err := strconv.ParseInt(fields[0], 10, 64)
		if err != nil {
			return 0
		}
		return kb << 10
	}
	return 0
}

// loadAvg is /proc/loadavg's 1, 5 and 15 minute averages, or "n/a".
func loadAvg() string {
	data, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "n/a"
	}
	f := strings.Fields(string(data))
	if len(f) < 3 {
		return "n/a"
	}
	return strings.Join(f[:3], " ")
}

// Machine describes the machine: CPUs, their model, the OS and the Go
// version the driver was built with.
func Machine() string {
	model := "unknown CPU"
	if f, err := os.Open("/proc/cpuinfo"); err == nil {
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			if name, value, ok := strings.Cut(sc.Text(), ":"); ok && strings.TrimSpace(name) == "model name" {
				model = strings.TrimSpace(value)
				break
			}
		}
		_ = f.Close()
	}
	return fmt.Sprintf("%d CPUs (%s), %s/%s, %s", runtime.NumCPU(), model, runtime.GOOS, runtime.GOARCH, runtime.Version())
}
