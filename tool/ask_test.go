package tool

import (
	"context"
	"errors"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
)

// plainClient is a Client that is not an Asker: it answers one question at
// a time.
type plainClient struct{ asked []string }

func (c *plainClient) Sample(_ context.Context, prompt string, _ int) (string, error) {
	c.asked = append(c.asked, "model: "+prompt)
	return "four", nil
}

func (c *plainClient) Elicit(_ context.Context, message string, _ *jsonschema.Schema) (*Elicitation, error) {
	c.asked = append(c.asked, "person: "+message)
	return &Elicitation{Action: "accept", Content: map[string]any{"name": "Ada"}}, nil
}

// TestAskWithoutAsker checks that Ask asks a Client that is not an Asker
// its questions in turn, that it cannot ask roots of one, and that Ask
// without a Client is unsupported.
func TestAskWithoutAsker(t *testing.T) {
	if _, err := Ask(context.Background(), Question{Kind: AskPerson}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("Ask without a client: %v, want ErrUnsupported", err)
	}
	c := &plainClient{}
	ctx := WithClient(context.Background(), c)
	a, err := Ask(ctx, Question{Key: "name", Kind: AskPerson, Message: "Name?"}, Question{Kind: AskModel, Prompt: "2+2?"})
	if err != nil {
		t.Fatal(err)
	}
	if a[0].Elicitation.Content["name"] != "Ada" || a[1].Text != "four" {
		t.Errorf("answers %+v", a)
	}
	if len(c.asked) != 2 || c.asked[0] != "person: Name?" || c.asked[1] != "model: 2+2?" {
		t.Errorf("asked %q, want the person then the model", c.asked)
	}
	if _, err := Ask(ctx, Question{Kind: AskRoots}); !errors.Is(err, ErrUnsupported) {
		t.Errorf("roots of a plain client: %v, want ErrUnsupported", err)
	}
}
