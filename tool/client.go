package tool

import (
	"context"
	"errors"

	"github.com/google/jsonschema-go/jsonschema"
)

// A Client is the caller's side of a run, for tools that ask it things
// while they run: an MCP client may sample its language model or elicit
// an answer from its person. Callers that can do so put one in the run's
// context with [WithClient].
type Client interface {
	// Sample asks the caller's language model to answer prompt, in at most
	// maxTokens tokens, and returns the text of its answer.
	Sample(ctx context.Context, prompt string, maxTokens int) (string, error)
	// Elicit asks the caller's person for values matching requested (an
	// object schema of flat properties) with a message.
	Elicit(ctx context.Context, message string, requested *jsonschema.Schema) (*Elicitation, error)
}

// An Elicitation is a person's answer: Action is "accept", "decline" or
// "cancel"; Content holds the values of an accepted answer.
type Elicitation struct {
	Action  string
	Content map[string]any
}

// ErrUnsupported is returned by [Sample] and [Elicit] when the caller
// cannot do what was asked.
var ErrUnsupported = errors.New("the caller does not support this")

type clientKey struct{}

// WithClient returns a context whose runs can ask c.
func WithClient(ctx context.Context, c Client) context.Context {
	return context.WithValue(ctx, clientKey{}, c)
}

// Sample asks the caller's language model to answer prompt. It returns an
// error wrapping [ErrUnsupported] when the caller has no model to ask.
func Sample(ctx context.Context, prompt string, maxTokens int) (string, error) {
	c, _ := ctx.Value(clientKey{}).(Client)
	if c == nil {
		return "", ErrUnsupported
	}
	return c.Sample(ctx, prompt, maxTokens)
}

// Elicit asks the caller's person for values matching requested. It
// returns an error wrapping [ErrUnsupported] when the caller cannot ask.
func Elicit(ctx context.Context, message string, requested *jsonschema.Schema) (*Elicitation, error) {
	c, _ := ctx.Value(clientKey{}).(Client)
	if c == nil {
		return nil, ErrUnsupported
	}
	return c.Elicit(ctx, message, requested)
}

// MediaResource is the media type of an output that holds an embedded
// [Resource]; see [ResourceDefinition].
const MediaResource = "application/vnd.toolapi.resource+json"

// A Resource is content a tool returns by reference and value, as MCP's
// embedded resources: a URI, its media type, and either text or bytes.
// Return it (or a pointer to it) as the value of an output defined by
// [ResourceDefinition]; it is published as a map with the keys uri,
// mime_type, and text or blob (base64).
type Resource struct {
	URI       string
	MediaType string
	Text      string
	Blob      []byte
}

// ResourceDefinition returns the definition of a required output named
// name that holds a [Resource].
func ResourceDefinition(name, description string) *Definition {
	return &Definition{
		Name: name, Type: "map", Description: description, Required: true,
		Constraints: Constraints{Media: MediaResource},
		Properties: []*Definition{
			{Name: "uri", Type: "uri", Required: true},
			{Name: "mime_type", Type: "string", Required: true},
			{Name: "text", Type: "string"},
			{Name: "blob", Type: "string", Constraints: Constraints{Media: "application/octet-stream"}},
		},
	}
}
