// Package toolsearch finds tools in a large catalog by the words people and
// models use for them, so that an agent can start from a few tools and a
// search tool instead of reading thousands of definitions.
//
// An [Index] ranks the tools of a [tool.Registry] with BM25 over four
// weighted fields: the tool's ID, its label, its description and the
// descriptions of its inputs. Search returns only the tools the account may
// run (by permission; entity ops and access methods are decided by a run).
// The index follows the registry: adding or removing a tool rebuilds it on
// the next search.
//
//	idx := toolsearch.New(reg, nil)
//	hits := idx.Search(acct, "add a song to an album", 5)
//	reg.Add(idx.Tool()) // the meta-tool "tools.search" for MCP and function calling
package toolsearch

import (
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"

	"github.com/kljensen/snowball/english"

	"github.com/toolapi/toolapi/tool"
)

// Limits of a search.
const (
	// DefaultLimit is the number of hits Search returns when asked for 0.
	DefaultLimit = 10
	// MaxLimit is the most hits one search returns.
	MaxLimit = 50
	// MaxQueryTerms is the most distinct words of a query that count,
	// after synonyms; the rest are ignored.
	MaxQueryTerms = 32
)

// Field weights: a word in a tool's ID or label says more about it than a
// word in the description of one of its inputs.
const (
	weightID          = 3.0
	weightLabel       = 3.0
	weightDescription = 1.0
	weightInputs      = 0.5
)

// BM25 parameters, the usual ones.
const (
	bm25K1 = 1.2
	bm25B  = 0.75
)

// Options configure an [Index]. A nil *Options means the defaults.
type Options struct {
	// ToolID is the ID of the meta-tool [Index.Tool] returns; empty means
	// "tools.search".
	ToolID string
	// Groups are the toolsets of the meta-tool ([tool.Tool.Groups]): a
	// connection narrowed to some toolsets reaches it only through one of
	// them. Within any narrowing, it finds only the tools the narrowing
	// keeps. Nil: none.
	Groups []string
}

// An Index ranks the tools of one registry. It is safe for concurrent use.
type Index struct {
	reg  *tool.Registry
	opts Options

	mu    sync.Mutex
	stale bool
	built *corpus // read without the lock once built; replaced, never changed
}

// A Hit is one tool a search found, with its score (higher is better).
type Hit struct {
	Tool  *tool.Tool
	Score float64
}

type posting struct {
	doc int32
	tf  float32 // weighted term frequency
}

type corpus struct {
	tools    []*tool.Tool
	length   []float32 // weighted length of each document
	avgLen   float64
	postings map[string][]posting
}

// New returns an index over reg's tools. opts may be nil.
func New(reg *tool.Registry, opts *Options) *Index {
	ix := &Index{reg: reg, stale: true}
	if opts != nil {
		ix.opts = *opts
	}
	if ix.opts.ToolID == "" {
		ix.opts.ToolID = "tools.search"
	}
	reg.OnChange(func() {
		ix.mu.Lock()
		ix.stale = true
		ix.mu.Unlock()
	})
	return ix
}

func (ix *Index) corpus() *corpus {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.stale || ix.built == nil {
		ix.built = build(ix.reg.List(nil), ix.opts.ToolID)
		ix.stale = false
	}
	return ix.built
}

func build(tools []*tool.Tool, self string) *corpus {
	c := &corpus{postings: make(map[string][]posting)}
	tf := make(map[string]float32)
	stems := make(map[string]string) // word -> stem, for this build
	for _, t := range tools {
		if t.ID == self {
			continue // the search tool never finds itself
		}
		clear(tf)
		var n float32
		add := func(text string, w float32) {
			for _, term := range termsCached(text, stems) {
				tf[term] += w
				n += w
			}
		}
		add(t.ID, weightID)
		add(t.Label, weightLabel)
		add(t.Description, weightDescription)
		for _, d := range t.Inputs {
			add(d.Name, weightInputs)
			add(d.Label, weightInputs)
			add(d.Description, weightInputs)
		}
		doc := int32(len(c.tools))
		c.tools = append(c.tools, t)
		c.length = append(c.length, n)
		c.avgLen += float64(n)
		for term, f := range tf {
			c.postings[term] = append(c.postings[term], posting{doc, f})
		}
	}
	if len(c.tools) > 0 {
		c.avgLen /= float64(len(c.tools))
	}
	return c
}

// Search returns the tools acct may run that best match query, best first,
// at most limit of them (0 means [DefaultLimit]; more than [MaxLimit] means
// MaxLimit). A nil acct is anonymous. A query with no words finds nothing.
func (ix *Index) Search(acct tool.Account, query string, limit int) []Hit {
	return ix.search(acct, nil, query, limit)
}

// search is Search keeping only the tools that nw allows (all when nil).
func (ix *Index) search(acct tool.Account, nw *tool.Narrowing, query string, limit int) []Hit {
	if limit <= 0 {
		limit = DefaultLimit
	}
	limit = min(limit, MaxLimit)
	qs := expand(terms(query))
	c := ix.corpus()
	if len(qs) == 0 || len(c.tools) == 0 {
		return nil
	}
	scores := make([]float64, len(c.tools))
	var touched []int32
	n := float64(len(c.tools))
	for q, w := range qs {
		ps := c.postings[q]
		if len(ps) == 0 {
			continue
		}
		idf := math.Log(1 + (n-float64(len(ps))+0.5)/(float64(len(ps))+0.5))
		for _, p := range ps {
			tf := float64(p.tf)
			norm := bm25K1 * (1 - bm25B + bm25B*float64(c.length[p.doc])/c.avgLen)
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += w * idf * tf * (bm25K1 + 1) / (tf + norm)
		}
	}
	hits := make([]Hit, 0, len(touched))
	for _, doc := range touched {
		hits = append(hits, Hit{Tool: c.tools[doc], Score: scores[doc]})
	}
	slices.SortFunc(hits, func(a, b Hit) int {
		if a.Score != b.Score {
			if a.Score > b.Score {
				return -1
			}
			return 1
		}
		return strings.Compare(a.Tool.ID, b.Tool.ID)
	})
	out := hits[:0]
	for _, h := range hits {
		if len(out) == limit {
			break
		}
		if h.Tool.Allowed(acct) && nw.Allows(h.Tool) {
			out = append(out, h)
		}
	}
	return slices.Clip(out)
}

// termsCached is terms with the stems of words seen before looked up in
// cache.
func termsCached(text string, cache map[string]string) []string {
	return split(text, func(w string) string {
		s, ok := cache[w]
		if !ok {
			s = stem(w)
			cache[w] = s
		}
		return s
	})
}

// terms is the words of text as split returns them, stemmed.
func terms(text string) []string { return split(text, stem) }

// split splits text into lower-case words at anything that is not a letter
// or digit (and at a change from lower to upper case, so "addTrack" is "add
// track"), drops the commonest English words and stems the rest.
func split(text string, stem func(string) string) []string {
	var out []string
	start := -1
	prevLower := false
	flush := func(end int) {
		if start >= 0 {
			if w := stem(strings.ToLower(text[start:end])); w != "" && !stop[w] {
				out = append(out, w)
			}
			start = -1
		}
	}
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case !word:
			flush(i)
		case start < 0:
			start = i
		case prevLower && unicode.IsUpper(r):
			flush(i)
			start = i
		}
		prevLower = word && unicode.IsLower(r)
	}
	flush(len(text))
	return out
}

// stem reduces a word to its English stem (Snowball), so that "tracks",
// "adding" and "added" meet "track" and "add".
func stem(w string) string { return english.Stem(w, false) }

// synonymWeight is what a word counts for when it only stands for a word
// of the query (a query's "add" finds a tool that "creates").
const synonymWeight = 0.6

// synonyms maps the everyday words for what a tool does to the words tool
// descriptions use for it. Both sides are stemmed when the table is built.
var synonyms = stemmed(map[string][]string{
	"create":    {"add", "new", "make", "book", "open", "register", "enroll", "take", "hire", "start", "insert", "write"},
	"update":    {"change", "edit", "modify", "set", "rename", "renew", "rotate", "receive", "grade", "move", "fix", "correct"},
	"delete":    {"remove", "cancel", "revoke", "drop", "erase", "destroy", "purge"},
	"search":    {"find", "look", "lookup", "query", "which", "filter", "browse"},
	"get":       {"show", "view", "fetch", "read", "display", "open", "detail"},
	"list":      {"all", "every", "browse", "show"},
	"notify":    {"send", "alert", "remind", "page", "email", "tell", "message", "ping", "warn"},
	"publish":   {"push", "release", "launch", "post", "go", "live", "deploy"},
	"unpublish": {"hide", "withdraw", "takedown", "unlist"},
	"duplicate": {"copy", "clone"},
	"tag":       {"label", "categorize", "mark"},
	"untag":     {"unlabel", "unmark"},
	"schedule":  {"later", "postpone", "plan", "delay", "queue"},
	"reject":    {"decline", "deny", "refuse"},
	"approve":   {"accept", "confirm", "allow", "reconcile"},
	"summarize": {"summary", "summarise", "tldr", "digest", "brief", "short"},
	"count":     {"many", "total", "number", "tally"},
	"export":    {"download", "csv", "dump", "extract"},
	"import":    {"upload", "load", "ingest", "bulk"},
	"archive":   {"shelve", "retire", "old"},
	"restore":   {"undelete", "recover", "undo", "bring", "back"},
	"assign":    {"escalate", "delegate", "hand", "owner", "give"},
	"merge":     {"combine", "dedupe", "deduplicate", "join"},
	"comment":   {"annotate", "remark", "note"},
})

func stemmed(m map[string][]string) map[string][]string {
	out := make(map[string][]string)
	for to, froms := range m {
		for _, from := range froms {
			f := stem(from)
			out[f] = append(out[f], stem(to))
		}
	}
	return out
}

// expand weighs the terms of a query: each of its own words counts 1, and
// a synonym it stands for counts synonymWeight unless the query has that
// word itself. At most MaxQueryTerms terms count.
func expand(qs []string) map[string]float64 {
	out := make(map[string]float64, len(qs))
	for _, q := range qs {
		if len(out) == MaxQueryTerms {
			return out
		}
		out[q] = 1
	}
	for _, q := range qs {
		for _, s := range synonyms[q] {
			if len(out) == MaxQueryTerms {
				return out
			}
			if _, ok := out[s]; !ok {
				out[s] = synonymWeight
			}
		}
	}
	return out
}

var stop = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "of": true, "to": true, "in": true,
	"on": true, "for": true, "by": true, "with": true, "from": true, "at": true, "is": true, "it": true,
	"its": true, "this": true, "that": true, "be": true, "as": true, "are": true, "i": true, "me": true,
	"my": true, "we": true, "our": true, "you": true, "your": true, "all": true, "some": true, "which": true,
}
