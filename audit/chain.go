package audit

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
)

// The chain of a [SQLStore].
//
// Each write of a record, its Add and each Complete, appends a link to
// the chain: the record's state as its table then holds it (every field,
// as canonical JSON), the SHA-256 of the link before, and its own
// SHA-256, of the two. A record completed later is so chained twice (or
// more): the link of its start and the link of its end; the last link of
// a record holds what its row must hold now. Links are numbered from 1
// without gaps. [SQLStore.Verify] walks the links and compares each
// record with its last link: an edited, added or deleted row, or link,
// breaks the chain where it was made.
//
// What the chain does not show: someone who can write the database can
// rewrite the whole chain from the link they changed on. Copy the last
// link's hash elsewhere (a log, another system) now and then, and
// compare it with the chain's, to close that gap.

// chainedState is a record's state as a link holds it: every field, in a
// fixed order.
type chainedState struct {
	ID           string `json:"id"`
	StartedNS    int64  `json:"started_ns"`
	Account      string `json:"account"`
	Tool         string `json:"tool"`
	Operation    string `json:"operation"`
	Outcome      string `json:"outcome"`
	Failure      string `json:"failure"`
	InputsSHA256 string `json:"inputs_sha256"`
	DurationNS   int64  `json:"duration_ns"`
	Runs         int64  `json:"runs"`
	Channel      string `json:"channel"`
	Client       string `json:"client"`
	Agent        string `json:"agent"`
	TraceID      string `json:"trace_id"`
	CallID       string `json:"call_id"`
	// Left out when empty, so that the links made before records had a
	// task ID still hold.
	TaskID string `json:"task_id,omitempty"`
	// Left out when empty, for the same reason.
	Approver string `json:"approver,omitempty"`
}

func stateOf(r *Record) string {
	b, _ := json.Marshal(chainedState{
		ID: r.ID, StartedNS: r.Time.UnixNano(), Account: r.Account, Tool: r.Tool, Operation: r.Operation,
		Outcome: string(r.Outcome), Failure: string(r.Failure), InputsSHA256: r.InputsSHA256,
		DurationNS: int64(r.Duration), Runs: runs(r),
		Channel: r.Channel, Client: r.Client, Agent: r.Agent, TraceID: r.TraceID, CallID: r.CallID, TaskID: r.TaskID,
		Approver: r.Approver,
	})
	return string(b)
}

// link returns the hex SHA-256 of the link of state after the link whose
// hash is prev.
func link(prev, state string) string {
	sum := sha256.Sum256([]byte(prev + "\n" + state))
	return hex.EncodeToString(sum[:])
}

// A Break is the first place where a trail's chain does not hold.
type Break struct {
	// Seq is the number of the link where the chain breaks; zero when the
	// break is a record no link holds.
	Seq int64
	// Record is the ID of the record concerned.
	Record string
	// Field names what differs: a column of the record ("outcome"), or
	// "link" when a link itself was changed, "missing" when a link or a
	// record is gone, "unchained" when a record was never chained.
	Field string
	// Stored and Chained are the field's value in the table and in the
	// chain, when Field is a column.
	Stored, Chained string
	// Breaks is how many breaks Verify found in all.
	Breaks int
}

func (b *Break) String() string {
	switch b.Field {
	case "link":
		return fmt.Sprintf("link %d (record %s): the link was changed: its hash does not follow from the link before and its state", b.Seq, b.Record)
	case "missing":
		if b.Record == "" {
			return fmt.Sprintf("link %d: missing", b.Seq)
		}
		return fmt.Sprintf("record %s: deleted from the table (chained at link %d)", b.Record, b.Seq)
	case "unchained":
		return fmt.Sprintf("record %s: in the table but in no link of the chain (added outside the trail)", b.Record)
	}
	return fmt.Sprintf("record %s: %s is %q in the table but %q in its last link (%d)", b.Record, b.Field, b.Stored, b.Chained, b.Seq)
}

// Verify walks the trail's chain and compares each record with its last
// link. It returns nil when the chain holds, else the first break (the
// one of the lowest link), with the number found in all. It reads the
// whole chain, holding each record's last state in memory.
func (s *SQLStore) Verify(ctx context.Context) (*Break, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT seq, record_id, state, prev_sha256, sha256 FROM `+s.chain+` ORDER BY seq`)
	if err != nil {
		return nil, fmt.Errorf("audit: reading the chain: %w", err)
	}
	type last struct {
		seq   int64
		state string
	}
	lasts := make(map[string]last)
	var breaks []Break
	var want int64 = 1
	prev := ""
	for rows.Next() {
		var seq int64
		var id, state, prevHash, hash string
		if err := rows.Scan(&seq, &id, &state, &prevHash, &hash); err != nil {
			rows.Close()
			return nil, fmt.Errorf("audit: reading the chain: %w", err)
		}
		if seq != want {
			breaks = append(breaks, Break{Seq: want, Field: "missing"})
		}
		if prevHash != prev || hash != link(prevHash, state) {
			breaks = append(breaks, Break{Seq: seq, Record: id, Field: "link"})
		}
		want, prev = seq+1, hash
		lasts[id] = last{seq, state}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("audit: reading the chain: %w", err)
	}
	recs, err := s.list(ctx, `SELECT `+recordColumns+` FROM `+s.table)
	if err != nil {
		return nil, err
	}
	for i := range recs {
		r := &recs[i]
		l, ok := lasts[r.ID]
		if !ok {
			breaks = append(breaks, Break{Record: r.ID, Field: "unchained"})
			continue
		}
		delete(lasts, r.ID)
		if got := stateOf(r); got != l.state {
			b := Break{Seq: l.seq, Record: r.ID}
			b.Field, b.Stored, b.Chained = differs(got, l.state)
			breaks = append(breaks, b)
		}
	}
	for id, l := range lasts {
		breaks = append(breaks, Break{Seq: l.seq, Record: id, Field: "missing"})
	}
	if len(breaks) == 0 {
		return nil, nil
	}
	first := breaks[0]
	for _, b := range breaks[1:] {
		if b.Seq < first.Seq || (b.Seq == first.Seq && b.Field == "link") {
			first = b
		}
	}
	if first.Seq == 0 {
		for _, b := range breaks {
			if b.Seq == 0 {
				first = b
				break
			}
		}
	}
	first.Breaks = len(breaks)
	return &first, nil
}

// differs returns the first field in which the states stored and chained
// differ, with both values.
func differs(stored, chained string) (field, a, b string) {
	var x, y map[string]any
	_ = json.Unmarshal([]byte(stored), &x)
	_ = json.Unmarshal([]byte(chained), &y)
	for _, f := range []string{"id", "started_ns", "account", "tool", "operation", "outcome", "failure", "inputs_sha256",
		"duration_ns", "runs", "channel", "client", "agent", "trace_id", "call_id", "task_id", "approver"} {
		if va, vb := show(x[f]), show(y[f]); va != vb {
			return f, va, vb
		}
	}
	return "state", stored, chained
}

func show(v any) string {
	switch v := v.(type) {
	case nil:
		return ""
	case string:
		return v
	case float64:
		return strconv.FormatFloat(v, 'f', -1, 64)
	}
	return fmt.Sprint(v)
}
