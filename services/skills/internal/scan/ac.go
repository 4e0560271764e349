package scan

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// automaton is an Aho-Corasick automaton over bytes, ASCII case folded,
// compiled to a full transition table over byte classes: one table lookup per
// byte of text, whatever the number of atoms.
type automaton struct {
	// class maps a byte (upper-case ASCII folded) to its column; bytes no
	// atom holds share column 0.
	class  [256]uint8
	nclass int
	// space marks the white space bytes: a run of them reads as one space.
	space  [256]bool
	delta  []uint16 // state*nclass + class → state
	out    [][]int32
	hasOut []bool
	natoms int
	atoms  []string
	// check marks the atoms outside ASCII, whose hits are checked.
	check []bool
}

// maxStates bounds the automaton (its states are 16-bit numbers).
const maxStates = 1 << 16

// newAutomaton compiles atoms (lower case). Atom i is reported as i. It
// returns nil when the atoms need more than maxStates states.
func newAutomaton(atoms []string) *automaton {
	a := &automaton{natoms: len(atoms), atoms: atoms}
	// Columns: one per distinct ASCII byte of the atoms; outside ASCII, one
	// for all continuation bytes, one per group of lead bytes that the
	// atoms' characters and the characters they fold to begin with, and one
	// for every other lead byte (a superset: the filter may say yes
	// wrongly, never no; findAll checks the hits of atoms outside ASCII).
	col := 1
	lead := map[byte]int{} // lead byte → group
	group := 0
	for _, s := range atoms {
		for _, r := range s {
			if r < utf8.RuneSelf || r == utf8.RuneError {
				continue
			}
			size := utf8.RuneLen(r)
			g := -1
			orbit := []rune{r}
			for f := unicode.SimpleFold(r); f != r; f = unicode.SimpleFold(f) {
				if utf8.RuneLen(f) == size {
					orbit = append(orbit, f)
				}
			}
			for _, o := range orbit {
				k, ok := lead[utf8.AppendRune(nil, o)[0]]
				switch {
				case !ok:
				case g < 0:
					g = k
				case k != g:
					for b, kb := range lead { // merge group k into g
						if kb == k {
							lead[b] = g
						}
					}
				}
			}
			if g < 0 {
				g = group
				group++
			}
			for _, o := range orbit {
				lead[utf8.AppendRune(nil, o)[0]] = g
			}
		}
	}
	for _, s := range atoms {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				continue
			}
			if a.class[s[i]] == 0 {
				if col == 255 {
					break
				}
				a.class[s[i]] = uint8(col)
				col++
			}
		}
	}
	// Groups beyond the columns left share the last one (a superset again).
	cont, other := col, col+1
	col += 2
	groupCol := make([]int, group)
	for g := range groupCol {
		groupCol[g] = min(col, 255)
		if col < 255 {
			col++
		}
	}
	for c := 0x80; c < 0x100; c++ {
		switch {
		case c < 0xC0:
			a.class[c] = uint8(cont)
		default:
			if g, ok := lead[byte(c)]; ok {
				a.class[c] = uint8(groupCol[g])
			} else {
				a.class[c] = uint8(other)
			}
		}
	}
	a.check = make([]bool, len(atoms))
	for id, s := range atoms {
		a.check[id] = !isASCIIString(s)
	}
	for c := 'A'; c <= 'Z'; c++ {
		a.class[c] = a.class[c+'a'-'A']
	}
	for _, c := range []byte{'\t', '\n', '\r', '\v', '\f'} {
		a.class[c] = a.class[' ']
		a.space[c] = true
	}
	a.space[' '] = true
	for _, c := range a.class {
		a.nclass = max(a.nclass, int(c)+1)
	}

	// The trie, as a table (-1: no edge), then the failure links and the
	// full transition table, breadth first.
	nc := a.nclass
	next := make([]int32, nc, nc*64)
	for i := range next {
		next[i] = -1
	}
	outs := [][]int32{nil}
	nstates := 1
	for id, s := range atoms {
		cur := 0
		for i := 0; i < len(s); i++ {
			c := int(a.class[s[i]])
			nx := next[cur*nc+c]
			if nx < 0 {
				nx = int32(nstates)
				nstates++
				next[cur*nc+c] = nx
				for range nc {
					next = append(next, -1)
				}
				outs = append(outs, nil)
			}
			cur = int(nx)
		}
		outs[cur] = append(outs[cur], int32(id))
		if nstates >= maxStates {
			return nil
		}
	}
	fail := make([]int32, nstates)
	a.delta = make([]uint16, nstates*nc)
	queue := make([]int32, 0, nstates)
	for c := 0; c < nc; c++ {
		if nx := next[c]; nx >= 0 {
			a.delta[c] = uint16(nx)
			queue = append(queue, nx)
		}
	}
	for len(queue) > 0 {
		st := int(queue[0])
		queue = queue[1:]
		f := int(fail[st])
		outs[st] = append(outs[st], outs[f]...)
		for c := 0; c < nc; c++ {
			if nx := next[st*nc+c]; nx >= 0 {
				fail[nx] = int32(a.delta[f*nc+c])
				a.delta[st*nc+c] = uint16(nx)
				queue = append(queue, nx)
			} else {
				a.delta[st*nc+c] = a.delta[f*nc+c]
			}
		}
	}
	a.out = outs
	a.hasOut = make([]bool, nstates)
	for i := range outs {
		a.hasOut[i] = len(outs[i]) > 0
	}
	return a
}

// findAll marks in seen the atoms text holds, and appends to hits[id] the
// offsets just past each occurrence (at most maxHits+1 per atom: past
// maxHits the caller treats the atom as everywhere).
func (a *automaton) findAll(text string, seen []bool, hits [][]int32) {
	if a.natoms == 0 {
		return
	}
	state := 0
	n := a.nclass
	delta, class, hasOut, space := a.delta, &a.class, a.hasOut, &a.space
	prevSpace := false
	for i := 0; i < len(text); i++ {
		c := text[i]
		if space[c] {
			if prevSpace {
				continue
			}
			prevSpace = true
		} else {
			prevSpace = false
		}
		state = int(delta[state*n+int(class[c])])
		if hasOut[state] {
			for _, id := range a.out[state] {
				if a.check[id] && !foldEqualBefore(text, i+1, a.atoms[id]) {
					continue
				}
				seen[id] = true
				if h := hits[id]; len(h) <= maxHits {
					hits[id] = append(h, int32(i+1))
				}
			}
		}
	}
}

// foldEqualBefore reports whether the text that ends at end is atom, as the
// automaton reads it (a space stands for a run of white space) and with
// letters in any case.
func foldEqualBefore(text string, end int, atom string) bool {
	i := end
	for len(atom) > 0 {
		k := strings.LastIndexByte(atom, ' ')
		word := atom[k+1:]
		if len(word) > i || !strings.EqualFold(text[i-len(word):i], word) {
			return false
		}
		i -= len(word)
		if k < 0 {
			return true
		}
		atom = atom[:k]
		if i == 0 || !isSpaceByte(text[i-1]) {
			return false
		}
		for i > 0 && isSpaceByte(text[i-1]) {
			i--
		}
	}
	return true
}
