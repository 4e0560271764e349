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
	// Columns: one per distinct byte of the atoms.
	col := 1
	for _, s := range atoms {
		for i := 0; i < len(s); i++ {
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
	for _, c := range []byte{'\t', '\n', '\r', '\v', '\f'} {
		a.class[c] = a.class[' ']
		a.space[c] = true
	}
	a.space[' '] = true
	a.nclass = col

	// The trie.
	type node struct {
		next map[uint8]int32
		fail int32
		out  []int32
	}
	nodes := []node{{next: map[uint8]int32{}}}
	for id, s := range atoms {
		cur := int32(0)
		for i := 0; i < len(s); i++ {
			c := a.class[s[i]]
			nx, ok := nodes[cur].next[c]
			if !ok {
				nodes = append(nodes, node{next: map[uint8]int32{}})
				nx = int32(len(nodes) - 1)
				nodes[cur].next[c] = nx
			}
			cur = nx
		}
		nodes[cur].out = append(nodes[cur].out, int32(id))
		if len(nodes) >= maxStates {
			return nil
		}
	}

	// Breadth first: failure links and the full table.
	a.delta = make([]uint16, len(nodes)*a.nclass)
	queue := make([]int32, 0, len(nodes))
	for c := 0; c < a.nclass; c++ {
		if nx, ok := nodes[0].next[uint8(c)]; ok {
			a.delta[c] = uint16(nx)
			nodes[nx].fail = 0
			queue = append(queue, nx)
		}
	}
	for len(queue) > 0 {
		s := queue[0]
		queue = queue[1:]
		f := nodes[s].fail
		nodes[s].out = append(nodes[s].out, nodes[f].out...)
		for c := 0; c < a.nclass; c++ {
			if nx, ok := nodes[s].next[uint8(c)]; ok {
				nodes[nx].fail = int32(a.delta[int(f)*a.nclass+c])
				a.delta[int(s)*a.nclass+c] = uint16(nx)
				queue = append(queue, nx)
			} else {
				a.delta[int(s)*a.nclass+c] = a.delta[int(f)*a.nclass+c]
			}
		}
	}
	a.out = make([][]int32, len(nodes))
	a.hasOut = make([]bool, len(nodes))
	for i := range nodes {
		a.out[i] = nodes[i].out
		a.hasOut[i] = len(nodes[i].out) > 0
	}
	return a
}

// findAll calls hit with each atom occurrence of text: its id and the offset
// just past it.
func (a *automaton) findAll(text string, hit func(id int32, end int)) {
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
				hit(id, i+1)
			}
		}
	}
}
