// Package english holds the small pieces of English grammar that messages
// and generated comments need: the indefinite article of a noun and the
// plural of a counted one.
//
// Package tool uses it for run-time messages ("The ID of a user.") and
// toolgen for the comments it writes ("// userProperties returns the
// properties of a User."); generated code never imports it.
package english

import (
	"strconv"
	"strings"
)

// WithArticle returns noun with its indefinite article, chosen by how the
// noun is spoken rather than by its first letter: "an album", "a photo",
// "a user", "a unit", "a European", "a one-time code", "an hour", "an
// honest answer", "a URL". It reads only the start of the noun, case
// aside, so it suits the names of entity types, data types and Go types
// ("UserProfile" is "a UserProfile"). An empty noun gets "a".
func WithArticle(noun string) string {
	if takesAn(strings.ToLower(noun)) {
		return "an " + noun
	}
	return "a " + noun
}

// anPrefixes start words spoken with a vowel though written with a
// consonant: a silent h.
var anPrefixes = []string{"hour", "honest", "honou", "honor", "heir"}

// aPrefixes start words spoken with a consonant though written with a
// vowel: "you" (uni-, use-, usu-, eu-, uu-) and "won" (one-). Those that
// also start words spoken with a vowel are narrowed: "uni" leaves out
// "unin" and "unim" (uninstalled, unimportant), "one" leaves out "oner"
// (onerous).
var aPrefixes = []string{"uni", "use", "usu", "usa", "uu", "eu", "one", "url", "ubiq", "ukr", "ufo"}

// notAPrefixes are the exceptions to aPrefixes, spoken with a vowel.
var notAPrefixes = []string{"unin", "unim", "oner"}

// takesAn reports whether the lower-case word w takes "an".
func takesAn(w string) bool {
	if w == "" {
		return false
	}
	for _, p := range anPrefixes {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	if !isVowel(w[0]) {
		return false
	}
	for _, p := range notAPrefixes {
		if strings.HasPrefix(w, p) {
			return true
		}
	}
	for _, p := range aPrefixes {
		if strings.HasPrefix(w, p) {
			return false
		}
	}
	// ur- and ut- followed by a vowel are spoken "you" (uranium, urine,
	// utility, utensil); followed by a consonant they are not (urgent,
	// urn, utter).
	if len(w) >= 3 && w[0] == 'u' && (w[1] == 'r' || w[1] == 't') && isVowel(w[2]) {
		return false
	}
	return true
}

func isVowel(c byte) bool { return strings.IndexByte("aeiou", c) >= 0 }

// Plural returns noun in the plural unless n is 1: "1 item" but "0 items",
// "2 properties". It knows the regular English plurals of the nouns that
// messages count (a consonant and "y" become "ies"; "s", "x", "ch" and
// "sh" take "es").
func Plural(n int, noun string) string {
	if n == 1 || noun == "" {
		return noun
	}
	l := strings.ToLower(noun)
	switch {
	case len(l) >= 2 && l[len(l)-1] == 'y' && !isVowel(l[len(l)-2]):
		return noun[:len(noun)-1] + "ies"
	case strings.HasSuffix(l, "s") || strings.HasSuffix(l, "x") || strings.HasSuffix(l, "ch") || strings.HasSuffix(l, "sh"):
		return noun + "es"
	}
	return noun + "s"
}

// Count returns n and noun, in the plural unless n is 1: "1 character",
// "3 characters", "0 items", "2 properties".
func Count(n int, noun string) string {
	return strconv.Itoa(n) + " " + Plural(n, noun)
}
