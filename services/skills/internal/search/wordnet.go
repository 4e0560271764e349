package search

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// Synonyms from a WordNet database installed on the system (see expand.go;
// off by default): Debian's wordnet-base puts WordNet 3.0 in
// /usr/share/wordnet. It is read at run time when present — nothing of it is
// in the repository or the binary — and without it there are no synonyms.
//
// The format (wndb(5)): index.<pos> has a line per lemma whose last
// synset_cnt fields are the byte offsets of its senses in data.<pos>, most
// frequent first; a data line has the synset's offset, lexicographer file,
// type, a hexadecimal word count and the words (with lex ids).

// WordnetDir is where Debian installs the WordNet database.
const WordnetDir = "/usr/share/wordnet"

// wordnetDB is a WordNet database in memory.
type wordnetDB struct {
	data  map[byte][]byte      // part of speech → data file
	index map[string][]wnSense // lemma → senses, most frequent first per POS
}

type wnSense struct {
	pos    byte
	offset int
}

var system struct {
	once sync.Once
	db   *wordnetDB
}

// systemWordnet loads the system's WordNet once; nil when absent.
func systemWordnet() *wordnetDB {
	system.once.Do(func() {
		db, err := loadWordnet(WordnetDir)
		if err == nil {
			system.db = db
		}
	})
	return system.db
}

// loadWordnet reads the WordNet database in dir.
func loadWordnet(dir string) (*wordnetDB, error) {
	db := &wordnetDB{data: map[byte][]byte{}, index: map[string][]wnSense{}}
	for _, pn := range []struct {
		pos  byte
		name string
	}{{'n', "noun"}, {'v', "verb"}, {'a', "adj"}, {'r', "adv"}} {
		pos := pn.pos
		data, err := os.ReadFile(filepath.Join(dir, "data."+pn.name))
		if err != nil {
			return nil, err
		}
		idx, err := os.ReadFile(filepath.Join(dir, "index."+pn.name))
		if err != nil {
			return nil, err
		}
		db.data[pos] = data
		for line := range bytes.Lines(idx) {
			if len(line) == 0 || line[0] == ' ' {
				continue
			}
			f := strings.Fields(string(line))
			if len(f) < 4 {
				continue
			}
			// lemma pos synset_cnt p_cnt [ptr...] sense_cnt tagsense_cnt offsets...
			nsyn, err := strconv.Atoi(f[2])
			if err != nil || nsyn <= 0 || nsyn > len(f)-4 {
				continue
			}
			for _, o := range f[len(f)-nsyn:] {
				if n, err := strconv.Atoi(o); err == nil && n >= 0 {
					db.index[f[0]] = append(db.index[f[0]], wnSense{pos: pos, offset: n})
				}
			}
		}
	}
	return db, nil
}

// synonyms returns the one-word lemmas sharing one of the first maxSenses
// senses (per part of speech) of word.
func (db *wordnetDB) synonyms(word string, maxSenses int) []string {
	if db == nil {
		return nil
	}
	var out []string
	count := map[byte]int{}
	var senses []wnSense
	forms := lemmas(word)
	for _, lemma := range forms {
		senses = append(senses, db.index[lemma]...)
	}
	for _, s := range senses {
		if count[s.pos] >= maxSenses {
			continue
		}
		count[s.pos]++
		data := db.data[s.pos]
		if s.offset >= len(data) {
			continue
		}
		line := data[s.offset:]
		if i := bytes.IndexByte(line, '\n'); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(string(line))
		if len(f) < 4 {
			continue
		}
		n, err := strconv.ParseInt(f[3], 16, 32)
		if err != nil {
			continue
		}
		for i := 0; i < int(n) && 4+2*i < len(f); i++ {
			w := strings.ToLower(f[4+2*i])
			if j := strings.IndexByte(w, '('); j >= 0 {
				w = w[:j]
			}
			if w != "" && !slices.Contains(forms, w) && !slices.Contains(out, w) && !strings.ContainsAny(w, "_-.'") {
				out = append(out, w)
			}
		}
	}
	return out
}

// lemmas returns the base forms a word may have, as WordNet's morphy finds
// them by detachment rules (the word itself first); the caller keeps those
// the index has.
func lemmas(word string) []string {
	out := []string{word}
	for _, r := range [...]struct{ suffix, base string }{
		{"ses", "s"}, {"xes", "x"}, {"zes", "z"}, {"ches", "ch"}, {"shes", "sh"}, {"men", "man"}, {"ies", "y"},
		{"s", ""}, {"es", "e"}, {"es", ""}, {"ed", "e"}, {"ed", ""}, {"ing", "e"}, {"ing", ""}, {"er", ""}, {"est", ""},
	} {
		if len(word) > len(r.suffix)+2 && strings.HasSuffix(word, r.suffix) {
			b := word[:len(word)-len(r.suffix)] + r.base
			if !slices.Contains(out, b) {
				out = append(out, b)
			}
		}
	}
	return out
}
