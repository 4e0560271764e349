package search

import "strings"

// irregular maps English inflections that Snowball cannot relate to their
// base word — irregular verbs ("written" → "write", "ran" → "run") and
// Greek and Latin plurals ("analyses" → "analysis", "indices" → "index") —
// to that base word, which is then stemmed as usual. Forms that are also
// common words of their own ("left", "found" as in "founded", "lead",
// "saw", "bases", "axes") are left out.
var irregular = func() map[string]string {
	m := map[string]string{}
	// base: forms
	for _, line := range strings.Split(`
arise: arose arisen
awake: awoke awoken
bear: bore borne
beat: beaten
become: became
begin: began begun
bend: bent
blow: blew blown
break: broke broken
bring: brought
build: built
burn: burnt
buy: bought
catch: caught
choose: chose chosen
come: came
creep: crept
deal: dealt
dig: dug
draw: drew drawn
dream: dreamt
drink: drank drunk
drive: drove driven
eat: ate eaten
fall: fell fallen
feed: fed
feel: felt
fight: fought
find: found
flee: fled
fly: flew flown
forbid: forbade forbidden
forget: forgot forgotten
forgive: forgave forgiven
freeze: froze frozen
get: got gotten
give: gave given
grow: grew grown
hang: hung
hear: heard
hide: hid hidden
hold: held
keep: kept
know: knew known
lay: laid
lie: lain
lose: lost
make: made
mean: meant
meet: met
overwrite: overwrote overwritten
pay: paid
prove: proven
ride: rode ridden
ring: rang rung
rise: rose risen
run: ran
say: said
see: seen
seek: sought
sell: sold
send: sent
shake: shook shaken
show: shown
shrink: shrank shrunk
sing: sang sung
sink: sank sunk
sleep: slept
slide: slid
speak: spoke spoken
spend: spent
spin: spun
steal: stole stolen
stick: stuck
sting: stung
strike: struck stricken
strive: strove striven
swear: swore sworn
swim: swam swum
swing: swung
take: took taken
teach: taught
tear: tore torn
tell: told
think: thought
throw: threw thrown
understand: understood
undo: undid undone
wake: woke woken
wear: wore worn
weave: wove woven
withdraw: withdrew withdrawn
write: wrote written
rewrite: rewrote rewritten
analysis: analyses
appendix: appendices
child: children
crisis: crises
criterion: criteria
diagnosis: diagnoses
foot: feet
hypothesis: hypotheses
index: indices
man: men
matrix: matrices
mouse: mice
parenthesis: parentheses
person: people
phenomenon: phenomena
synthesis: syntheses
thesis: theses
tooth: teeth
vertex: vertices
woman: women`, "\n") {
		base, forms, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(forms) {
			m[f] = base
		}
	}
	return m
}()
