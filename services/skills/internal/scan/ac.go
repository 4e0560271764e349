package scan

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
}

// maxStates bounds the automaton (its states are 16-bit numbers).
const maxStates = 1 << 16

// newAutomaton compiles atoms (lower case). Atom i is reported as i. It
// returns nil when the atoms need more than maxStates states.
func newAutomaton(atoms []string) *automaton {
	a := &automaton{natoms: len(atoms)}
	// Columns: one per distinct ASCII byte of the atoms, and one for every
	// byte outside ASCII (a superset: the filter may say yes wrongly, never
	// no).
	col := 1
	nonASCII := 0
	for _, s := range atoms {
		for i := 0; i < len(s); i++ {
			if s[i] >= 0x80 {
				if nonASCII == 0 {
					nonASCII = col
					col++
				}
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
	for c := 'A'; c <= 'Z'; c++ {
		a.class[c] = a.class[c+'a'-'A']
	}
	for c := 0x80; c < 0x100; c++ {
		a.class[c] = uint8(nonASCII)
	}
	for _, c := range []byte{'\t', '\n', '\r', '\v', '\f'} {
		a.class[c] = a.class[' ']
		a.space[c] = true
	}
	a.space[' '] = true
	a.nclass = col

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
				seen[id] = true
				if h := hits[id]; len(h) <= maxHits {
					hits[id] = append(h, int32(i+1))
				}
			}
		}
	}
}
