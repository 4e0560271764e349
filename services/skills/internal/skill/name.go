package skill

import (
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// maxNameRunes is the Agent Skills limit on a skill name's length.
const maxNameRunes = 64

// ValidateName returns what is wrong with name under the Agent Skills naming
// rules (agentskills.io): 1 to 64 characters, only lower-case letters, digits
// and hyphens, no hyphen at either end and no two in a row. It returns nil for
// a valid name. Like the reference validator, it accepts lower-case letters
// and digits beyond ASCII. It does not compare the name with its folder: the
// catalog knows the layout and does that.
func ValidateName(name string) []string {
	if name == "" {
		return []string{"the name is empty"}
	}
	var probs []string
	if n := utf8.RuneCountInString(name); n > maxNameRunes {
		probs = append(probs, fmt.Sprintf("the name is %d characters long; the limit is %d", n, maxNameRunes))
	}
	upper, other := false, []rune(nil)
	for _, r := range name {
		switch {
		case r == '-':
		case unicode.IsLetter(r) || unicode.IsNumber(r):
			if unicode.ToLower(r) != r {
				upper = true
			}
		default:
			if len(other) < 3 && !slices.Contains(other, r) {
				other = append(other, r)
			}
		}
	}
	if upper {
		probs = append(probs, "the name must be lower-case")
	}
	if len(other) > 0 {
		quoted := make([]string, len(other))
		for i, r := range other {
			quoted[i] = fmt.Sprintf("%q", r)
		}
		probs = append(probs, "the name may only contain letters, digits and hyphens, not "+strings.Join(quoted, ", "))
	}
	if name[0] == '-' || name[len(name)-1] == '-' {
		probs = append(probs, "the name must not start or end with a hyphen")
	}
	if strings.Contains(name, "--") {
		probs = append(probs, "the name must not contain two hyphens in a row")
	}
	return probs
}
