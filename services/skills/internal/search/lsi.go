package search

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
)

// Latent semantic indexing over the catalog's own text (see expand.go; off
// by default): a truncated SVD A ≈ U·Σ·Vᵀ of the term × skill matrix
// (entries: saturated BM25F term frequency × idf, for words of at least two
// skills; each skill's column of unit length), computed by randomized
// subspace iteration on AᵀA (n skills × l = rank+10 vectors, lsiIters
// rounds, then the l × l eigenproblem by Jacobi rotations). A query is
// folded in as Uᵀq (q: its words' idf) and compared by cosine with each
// skill's Σ·vⱼ; the cosine is blended into the lexical score (lsiWeight ×
// the best lexical score × cosine) or, with lsiRRF, the two rankings are
// fused by reciprocal rank.

// lsiModel is the factorisation: a row of U per term, Σ·vⱼ per skill.
type lsiModel struct {
	k int
	// termVec holds k floats per term (terms of one skill are left out).
	termVec map[int32][]float32
	// docVec holds k floats per skill, of unit length.
	docVec []float32
}

// buildLSI factorises the index (see above); a catalog of fewer than four
// skills gets no model.
func (ix *Index) buildLSI() {
	n := len(ix.docs)
	k := ix.tune.expansion.lsiRank
	if n < 2*k {
		k = n / 2
	}
	if k < 2 {
		return
	}
	l := k + 10
	k1 := ix.tune.k1
	type col struct {
		t int32
		d []int32
		w []float64
	}
	var cols []col
	for t := range ix.terms {
		e := &ix.terms[t]
		if len(e.postings) < 2 || strings.HasPrefix(e.text, "\x00") {
			continue
		}
		c := col{t: int32(t)}
		for _, p := range e.postings {
			tf := float64(p.tf)
			c.d = append(c.d, p.doc)
			c.w = append(c.w, tf/(k1+tf)*e.idf)
		}
		cols = append(cols, c)
	}
	// Normalise each skill's column to unit length (long bodies must not
	// dominate the factorisation).
	norm := make([]float64, n)
	for _, c := range cols {
		for i, d := range c.d {
			norm[d] += c.w[i] * c.w[i]
		}
	}
	for _, c := range cols {
		for i, d := range c.d {
			c.w[i] /= math.Sqrt(norm[d])
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	z := make([]float64, n*l) // row-major n × l
	for i := range z {
		z[i] = rng.NormFloat64()
	}
	y := make([]float64, len(cols)*l)
	mulA := func() { // y = A z
		clear(y)
		for ci, c := range cols {
			yr := y[ci*l : ci*l+l]
			for i, d := range c.d {
				w := c.w[i]
				zr := z[int(d)*l : int(d)*l+l]
				for j := range l {
					yr[j] += w * zr[j]
				}
			}
		}
	}
	mulAT := func() { // z = Aᵀ y
		clear(z)
		for ci, c := range cols {
			yr := y[ci*l : ci*l+l]
			for i, d := range c.d {
				w := c.w[i]
				zr := z[int(d)*l : int(d)*l+l]
				for j := range l {
					zr[j] += w * yr[j]
				}
			}
		}
	}
	orthonormalize(z, n, l)
	for range ix.tune.expansion.lsiIters {
		mulA()
		mulAT()
		orthonormalize(z, n, l)
	}
	mulA() // y = A z, V' × l
	// C = yᵀ y (l × l), eigen-decomposed.
	c := make([]float64, l*l)
	for r := range cols {
		yr := y[r*l : r*l+l]
		for i := range l {
			for j := i; j < l; j++ {
				c[i*l+j] += yr[i] * yr[j]
			}
		}
	}
	for i := range l {
		for j := range i {
			c[i*l+j] = c[j*l+i]
		}
	}
	vals, vecs := jacobiEigen(c, l)
	order := make([]int, l)
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int {
		switch {
		case vals[a] > vals[b]:
			return -1
		case vals[a] < vals[b]:
			return 1
		}
		return a - b
	})
	order = order[:k]
	m := &lsiModel{k: k, termVec: map[int32][]float32{}, docVec: make([]float32, n*k)}
	for ci, cl := range cols {
		yr := y[ci*l : ci*l+l]
		v := make([]float32, k)
		for a, o := range order {
			s := math.Sqrt(max(vals[o], 1e-12))
			var sum float64
			for j := range l {
				sum += yr[j] * vecs[j*l+o]
			}
			v[a] = float32(sum / s)
		}
		m.termVec[cl.t] = v
	}
	for d := range n {
		zr := z[d*l : d*l+l]
		dv := m.docVec[d*k : d*k+k]
		var nn float64
		for a, o := range order {
			s := math.Sqrt(max(vals[o], 0))
			var sum float64
			for j := range l {
				sum += zr[j] * vecs[j*l+o]
			}
			dv[a] = float32(sum * s)
			nn += float64(dv[a]) * float64(dv[a])
		}
		if nn > 0 {
			inv := float32(1 / math.Sqrt(nn))
			for a := range dv {
				dv[a] *= inv
			}
		}
	}
	ix.lsi = m
}

// orthonormalize makes the l columns of the row-major n × l matrix z
// orthonormal (modified Gram-Schmidt).
func orthonormalize(z []float64, n, l int) {
	for j := range l {
		for p := range j {
			var dot float64
			for i := range n {
				dot += z[i*l+j] * z[i*l+p]
			}
			for i := range n {
				z[i*l+j] -= dot * z[i*l+p]
			}
		}
		var nn float64
		for i := range n {
			nn += z[i*l+j] * z[i*l+j]
		}
		nn = math.Sqrt(nn)
		if nn == 0 {
			continue
		}
		for i := range n {
			z[i*l+j] /= nn
		}
	}
}

// jacobiEigen returns the eigenvalues and eigenvectors (columns of the
// row-major n × n result) of the symmetric matrix a (destroyed).
func jacobiEigen(a []float64, n int) ([]float64, []float64) {
	v := make([]float64, n*n)
	for i := range n {
		v[i*n+i] = 1
	}
	for sweep := 0; sweep < 50; sweep++ {
		var off float64
		for i := range n {
			for j := i + 1; j < n; j++ {
				off += a[i*n+j] * a[i*n+j]
			}
		}
		if off < 1e-22 {
			break
		}
		for p := range n {
			for q := p + 1; q < n; q++ {
				apq := a[p*n+q]
				if math.Abs(apq) < 1e-15 {
					continue
				}
				theta := (a[q*n+q] - a[p*n+p]) / (2 * apq)
				t := math.Copysign(1, theta) / (math.Abs(theta) + math.Sqrt(theta*theta+1))
				c := 1 / math.Sqrt(t*t+1)
				s := t * c
				for k := range n {
					akp, akq := a[k*n+p], a[k*n+q]
					a[k*n+p] = c*akp - s*akq
					a[k*n+q] = s*akp + c*akq
				}
				for k := range n {
					apk, aqk := a[p*n+k], a[q*n+k]
					a[p*n+k] = c*apk - s*aqk
					a[q*n+k] = s*apk + c*aqk
				}
				for k := range n {
					vkp, vkq := v[k*n+p], v[k*n+q]
					v[k*n+p] = c*vkp - s*vkq
					v[k*n+q] = s*vkp + c*vkq
				}
			}
		}
	}
	vals := make([]float64, n)
	for i := range n {
		vals[i] = a[i*n+i]
	}
	return vals, v
}

// blendLSI adds lsiWeight × the best lexical score (top) × each skill's
// latent cosine with the query (when positive) to the accumulators, or fuses
// the rankings (lsiRRF).
func (ix *Index) blendLSI(r *result, top float64) {
	m := ix.lsi
	if m == nil || top <= 0 {
		return
	}
	q := make([]float64, m.k)
	for _, g := range r.groups {
		if g.bonus || len(g.alts) == 0 {
			continue
		}
		a := g.alts[0]
		v, ok := m.termVec[a.term]
		if !ok {
			continue
		}
		w := g.weight * a.w * ix.terms[a.term].idf
		for i, x := range v {
			q[i] += w * float64(x)
		}
	}
	var nn float64
	for _, x := range q {
		nn += x * x
	}
	if nn == 0 {
		return
	}
	nn = math.Sqrt(nn)
	s := r.s
	x := &ix.tune.expansion
	if x.lsiRRF > 0 {
		ix.fuseRRF(r, q, nn, top)
		return
	}
	c := x.lsiWeight * top
	for d := range ix.docs {
		cos := ix.lsi.cosine(q, nn, d)
		if cos <= 0 {
			continue
		}
		if s.acc[d] == 0 {
			s.touched = append(s.touched, int32(d))
		}
		s.acc[d] += c * cos
	}
}

// fuseRRF replaces the accumulators by reciprocal rank fusion of the lexical
// ranking and the latent one's best 100 (k = lsiRRF, the latent votes
// weighing lsiWeight), scaled so that a skill first in both scores top.
func (ix *Index) fuseRRF(r *result, q []float64, nn, top float64) {
	m := ix.lsi
	s := r.s
	n := len(ix.docs)
	type dv struct {
		d int32
		v float64
	}
	lex := make([]dv, 0, len(s.touched))
	for _, d := range s.touched {
		lex = append(lex, dv{d, s.acc[d]})
	}
	lat := make([]dv, n)
	for d := range n {
		lat[d] = dv{int32(d), m.cosine(q, nn, d)}
	}
	byV := func(a, b dv) int {
		switch {
		case a.v > b.v:
			return -1
		case a.v < b.v:
			return 1
		}
		return int(a.d - b.d)
	}
	slices.SortFunc(lex, byV)
	slices.SortFunc(lat, byV)
	k, w := ix.tune.expansion.lsiRRF, ix.tune.expansion.lsiWeight
	fused := make([]float64, n)
	for i, x := range lex {
		fused[x.d] += 1 / (k + float64(i+1))
	}
	for i, x := range lat[:min(n, 100)] {
		fused[x.d] += w / (k + float64(i+1))
	}
	best := 1 / (k + 1) * (1 + w)
	for d, f := range fused {
		if f == 0 {
			continue
		}
		if s.acc[d] == 0 {
			s.touched = append(s.touched, int32(d))
		}
		s.acc[d] = top * f / best
	}
}

// cosine is skill d's cosine with the folded query q of norm nn.
func (m *lsiModel) cosine(q []float64, nn float64, d int) float64 {
	var dot float64
	for i, x := range m.docVec[d*m.k : d*m.k+m.k] {
		dot += q[i] * float64(x)
	}
	return dot / nn
}
