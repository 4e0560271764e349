package search

import "strings"

// Stop words per language, written folded (lower case, accents removed: see
// foldWord), since that is the form the analyzer compares. They are function
// words — articles, pronouns, auxiliaries, prepositions, conjunctions — plus
// the fragments left by splitting contractions and elisions at the
// apostrophe ("don't" → "don", "t"; "l'index" → "l", "index"), and a few
// request words that say nothing about a task ("please", "etc").
//
// Content words that are merely frequent ("use", "file", "code") are not stop
// words: inverse document frequency already gives them little weight, and in
// a catalog about one subject they may be the only words that matter.
var (
	stopEnglish = strings.Fields(`
		a about above after again against all am an and any are aren as at
		be because been before being below between both but by
		can cannot could couldn did didn do does doesn doing don down during
		each etc few for from further had hadn has hasn have haven having he her
		here hers herself him himself his how i if in into is isn it its itself
		just let me more most mustn my myself no nor not of off on once only or
		other ought our ours ourselves out over own please same shan she should
		shouldn so some such than that the their theirs them themselves then
		there these they this those through to too under until up very was wasn
		we were weren what when where which while who whom why will with won
		would wouldn you your yours yourself yourselves
		s t d ll m re ve eg ie`)

	stopFrench = strings.Fields(`
		a ai aie aient aies ait as au aucun aucune aupres aussi autre aux avec
		avaient avais avait avez aviez avions avoir avons ayant c ca ce ceci
		cela celle celles celui ces cet cette ceux chez comme comment d dans de
		des donc dont du elle elles en encore es est et etaient etais etait
		etant ete etes etre eu eux faire fait fais ici il ils j je l la le les
		leur leurs lui m ma mais me meme mes moi mon n ne ni nos notre nous on
		ont ou par parce pas pendant peu peut plus pour pourquoi qu quand que
		quel quelle quelles quels qui s sa sans se sera seront ses si sien son
		sont sous suis sur t ta te tes toi ton tous tout toute toutes tres tu un
		une vers voici voila vos votre vous y`)

	stopSpanish = strings.Fields(`
		a al algo algun alguna algunas alguno algunos ante antes aqui asi aun
		cada como con contra cual cuales cuando de del desde donde dos el ella
		ellas ellos en entre era eran eres es esa esas ese eso esos esta estaba
		estado estan estar estas este esto estos estoy fue fueron ha haber habia
		han has hasta hay haz he la las le les lo los mas me mi mis mucho muy
		nada ni no nos nosotros nuestra nuestras nuestro nuestros o os otra
		otras otro otros para pero poco por porque que quien quienes se sea sean
		ser si sin sobre son su sus tambien tan te tener tengo ti tiene tienen
		todo todos tu tus un una unas uno unos usted ustedes vosotros y ya yo`)

	stopGerman = strings.Fields(`
		aber alle allem allen aller alles als also am an ander andere anderem
		anderen anderer anderes auch auf aus bei beim bin bis bist da dabei
		damit dann das dass dein deine dem den der des dessen dich die dies
		diese diesem diesen dieser dieses dir doch dort du durch ein eine einem
		einen einer eines er es etwas euch euer eure fur gegen gewesen hab habe
		haben hat hatte hier hin hinter ich ihm ihn ihnen ihr ihre ihrem ihren
		ihrer im in ist ja jede jedem jeden jeder jedes jetzt kann kein keine
		mein meine mich mir mit muss nach nicht noch nun nur ob oder ohne sehr
		sein seine sich sie sind so soll sollte sondern uber um und uns unser
		unsere unserem unseren unserer unter viel vom von vor war waren was
		weil welche welchem welchen welcher welches wenn wer werde werden wie
		wieder will wir wird wo wollen wurde zu zum zur zwischen`)
)

// stopSet is the set of stop words of each language, plus the caller's extra
// words, which apply to every language.
type stopSet [numLangs]map[string]bool

func newStopSet(extra []string) stopSet {
	var s stopSet
	lists := [numLangs][]string{langEnglish: stopEnglish, langFrench: stopFrench, langSpanish: stopSpanish, langGerman: stopGerman}
	for l, words := range lists {
		m := make(map[string]bool, len(words)+len(extra))
		for _, w := range words {
			m[w] = true
		}
		for _, w := range extra {
			if f := foldWord(w); f != "" {
				m[f] = true
			}
		}
		s[l] = m
	}
	return s
}
