package directive

import (
	"fmt"
	"strings"
)

// Suggest returns the candidate closest to word, for a "did you mean"
// hint: the one fewest single-letter edits away (letter case ignored), at
// most one edit for a word of up to four letters and two for a longer
// one, and fewer edits than the word has letters. It returns "" when no
// candidate is that close; the first candidate wins a tie.
func Suggest(word string, candidates []string) string {
	limit := 2
	if len(word) <= 4 {
		limit = 1
	}
	limit = min(limit, len(word)-1)
	best, bestDist := "", limit+1
	w := strings.ToLower(word)
	for _, c := range candidates {
		if d := editDistance(w, strings.ToLower(c)); d < bestDist && c != word {
			best, bestDist = c, d
		}
	}
	return best
}

// DidYouMean returns ": did you mean X?" for the candidate [Suggest]
// finds for word, "" when none is close.
func DidYouMean(word string, candidates []string) string {
	if s := Suggest(word, candidates); s != "" {
		return fmt.Sprintf(": did you mean %s?", s)
	}
	return ""
}

// editDistance returns the Levenshtein distance between a and b, a
// transposition of two neighbouring letters counting as one edit.
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
