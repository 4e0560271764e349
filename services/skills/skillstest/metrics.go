package skillstest

import (
	"bufio"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// Metrics are the samples of one scrape of a /metrics page (Prometheus
// text format): each line "name{labels} value" by its name and labels.
type Metrics struct {
	samples []sample
	Text    string
}

type sample struct {
	name   string
	labels map[string]string
	value  float64
}

// Scrape fetches url (a /metrics page) and parses it; an answer other than
// 200 fails the test.
func Scrape(t testing.TB, url string) Metrics {
	t.Helper()
	c := &http.Client{Timeout: 10 * time.Second}
	resp, err := c.Get(url)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("scraping %s: %v", url, err)
	}
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("scraping %s: %s\n%s", url, resp.Status, body)
	}
	m := Metrics{Text: string(body)}
	sc := bufio.NewScanner(strings.NewReader(m.Text))
	sc.Buffer(make([]byte, 0, 64*1024), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, rest := line, ""
		labels := map[string]string{}
		if i := strings.IndexByte(line, '{'); i >= 0 {
			j := strings.LastIndexByte(line, '}')
			name, rest = line[:i], strings.TrimSpace(line[j+1:])
			for _, kv := range splitLabels(line[i+1 : j]) {
				k, v, _ := strings.Cut(kv, "=")
				if uq, err := strconv.Unquote(v); err == nil {
					v = uq
				}
				labels[k] = v
			}
		} else if i := strings.IndexByte(line, ' '); i >= 0 {
			name, rest = line[:i], strings.TrimSpace(line[i+1:])
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		v, err := strconv.ParseFloat(f[0], 64)
		if err != nil {
			continue
		}
		m.samples = append(m.samples, sample{name: name, labels: labels, value: v})
	}
	return m
}

// splitLabels splits `a="x",b="y,z"` at the commas outside quotes.
func splitLabels(s string) []string {
	var out []string
	inQuote, esc, start := false, false, 0
	for i, r := range s {
		switch {
		case esc:
			esc = false
		case r == '\\':
			esc = true
		case r == '"':
			inQuote = !inQuote
		case r == ',' && !inQuote:
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	return out
}

// Value is the sum of the samples named name whose labels include labels
// (key, value pairs), and whether there was one.
func (m Metrics) Value(name string, labels ...string) (float64, bool) {
	var sum float64
	found := false
next:
	for _, s := range m.samples {
		if s.name != name {
			continue
		}
		for i := 0; i+1 < len(labels); i += 2 {
			if s.labels[labels[i]] != labels[i+1] {
				continue next
			}
		}
		sum += s.value
		found = true
	}
	return sum, found
}
