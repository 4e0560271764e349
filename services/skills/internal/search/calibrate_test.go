package search

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
)

// calPoint is one development query as calibration sees it: the feature x
// of its top hit, whether that hit is right, and whether the query has an
// answer at all.
type calPoint struct {
	x          float64
	right, has bool
}

func calPoints(t *testing.T) []calPoint {
	skills := corpusSkills(t)
	ix := New(skills, Options{Threshold: -1})
	var pts []calPoint
	for _, q := range devQueries(t) {
		r := ix.rank(Query{Text: q.Query}, 1)
		p := calPoint{x: math.Inf(-1), has: len(q.Expected) > 0}
		if len(r.cands) > 0 {
			top := r.cands[0]
			if x, ok := r.feature(top.doc, top.raw); ok {
				p.x = x
			}
			name := ix.docs[top.doc].skill.Name
			p.right = slices.ContainsFunc(q.Expected, func(e string) bool { return strings.EqualFold(e, name) })
		}
		ix.release(r)
		pts = append(pts, p)
	}
	return pts
}

// fitLogistic fits P(right) = σ(a·x + b) by Newton's method (with a tiny
// ridge for stability).
func fitLogistic(pts []calPoint) (a, b float64) {
	for iter := 0; iter < 50; iter++ {
		var ga, gb, haa, hab, hbb float64
		for _, p := range pts {
			if math.IsInf(p.x, -1) {
				continue
			}
			pr := 1 / (1 + math.Exp(-(a*p.x + b)))
			y := 0.0
			if p.right {
				y = 1
			}
			w := pr * (1 - pr)
			ga += (pr - y) * p.x
			gb += pr - y
			haa += w * p.x * p.x
			hab += w * p.x
			hbb += w
		}
		const ridge = 1e-3
		ga += ridge * a
		haa += ridge
		det := haa*hbb - hab*hab
		da := (hbb*ga - hab*gb) / det
		db := (haa*gb - hab*ga) / det
		a, b = a-da, b-db
		if math.Abs(da)+math.Abs(db) < 1e-10 {
			break
		}
	}
	return a, b
}

// TestCalibration checks that the compiled-in calibration still fits the
// development queries, and logs the fit and the operating points: how many
// queries without an answer get one, and how many with one are left
// unanswered, around the default threshold.
func TestCalibration(t *testing.T) {
	pts := calPoints(t)
	a, b := fitLogistic(pts)
	t.Logf("logistic fit on %d dev queries: slope %.3f bias %.3f (compiled in: %.3f %.3f)", len(pts), a, b, calSlope, calBias)

	// The x interval where the targets hold: fewer than 25% of
	// none queries answered, at least 95% of the others.
	var pos, neg []float64
	for _, p := range pts {
		if p.has {
			pos = append(pos, p.x)
		} else {
			neg = append(neg, p.x)
		}
	}
	slices.Sort(pos)
	slices.Sort(neg)
	maxAbstain := int(math.Floor(float64(len(pos)) * (1 - targetAnswered)))
	maxAnswer := int(math.Ceil(float64(len(neg))*targetNoneAnswer)) - 1
	hi := pos[maxAbstain]           // a threshold above abstains on too many
	lo := neg[len(neg)-1-maxAnswer] // a threshold at or below answers too many
	mid := (lo + hi) / 2
	t.Logf("targets hold for x in (%.3f, %.3f]: midpoint %.3f = score %.3f (DefaultThreshold %.3f = x %.3f)",
		lo, hi, mid, sigmoid(calSlope*mid+calBias), DefaultThreshold, (logit(DefaultThreshold)-calBias)/calSlope)

	var rows strings.Builder
	fmt.Fprintf(&rows, "%9s %9s %14s %18s %12s\n", "threshold", "x", "none answered", "others unanswered", "right & kept")
	for _, th := range []float64{0.05, 0.1, 0.15, 0.2, 0.25, 0.3, 0.4, 0.5} {
		x := (logit(th) - calBias) / calSlope
		na, un, rk := 0, 0, 0
		for _, p := range pts {
			switch {
			case !p.has && p.x >= x:
				na++
			case p.has && p.x < x:
				un++
			case p.has && p.right:
				rk++
			}
		}
		fmt.Fprintf(&rows, "%9.2f %9.3f %8d/%-5d %12d/%-5d %7d/%-4d\n", th, x, na, len(neg), un, len(pos), rk, len(pos))
	}
	t.Logf("operating points:\n%s", rows.String())

	// Reliability: predicted probability against the share right, by bin.
	var rel strings.Builder
	for lo := 0.0; lo < 1; lo += 0.2 {
		n, right, sum := 0, 0, 0.0
		for _, p := range pts {
			pr := sigmoid(calSlope*p.x + calBias)
			if pr >= lo && (pr < lo+0.2 || lo+0.2 >= 1 && pr <= 1) {
				n++
				sum += pr
				if p.right {
					right++
				}
			}
		}
		if n > 0 {
			fmt.Fprintf(&rel, "score %.1f-%.1f: %3d queries, mean score %.2f, right %.2f\n", lo, lo+0.2, n, sum/float64(n), float64(right)/float64(n))
		}
	}
	t.Logf("reliability:\n%s", rel.String())

	if d := math.Abs(a-calSlope) + math.Abs(b-calBias); d > 0.5*(math.Abs(calSlope)+math.Abs(calBias)) {
		t.Errorf("the compiled-in calibration (%.2f, %.2f) is far from the fit (%.2f, %.2f): refit", calSlope, calBias, a, b)
	}
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

func logit(p float64) float64 { return math.Log(p / (1 - p)) }
