package main

//go:generate go run github.com/toolapi/toolapi/cmd/toolgen

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/toolapi/toolapi/tool"
)

// Service holds the tools of the MCP conformance suite's server scenarios,
// under the IDs the suite calls.
type Service struct{}

// The suite's minimal test files.
var (
	// png is a 1x1 red PNG image.
	png = mustDecode("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==")
	// wav is a WAV file of silence.
	wav = mustDecode("UklGRiYAAABXQVZFZm10IBAAAAABAAEAQB8AAAB9AAACABAAZGF0YQIAAAA=")
)

// mustDecode returns the bytes of a standard base64 constant.
func mustDecode(s string) []byte {
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		panic(err)
	}
	return b
}

// SimpleText returns a fixed sentence.
//
// Returns the sentence.
//
//tool:method id=test_simple_text op=read permission="run conformance tests"
func (s *Service) SimpleText(ctx context.Context) (string, error) {
	return "This is a simple text response for testing.", nil
}

// ImageContent returns a one-pixel PNG image.
//
// Returns the image.
//
//tool:method id=test_image_content op=read permission="run conformance tests"
//tool:output media=image/png
func (s *Service) ImageContent(ctx context.Context) ([]byte, error) {
	return png, nil
}

// AudioContent returns a short WAV recording of silence.
//
// Returns the recording.
//
//tool:method id=test_audio_content op=read permission="run conformance tests"
//tool:output media=audio/wav
func (s *Service) AudioContent(ctx context.Context) ([]byte, error) {
	return wav, nil
}

// EmbeddedResource returns a text resource by URI and content.
//
// Returns a resource, by URI and content.
//
//tool:method id=test_embedded_resource op=read permission="run conformance tests"
//tool:output resource
func (s *Service) EmbeddedResource(ctx context.Context) (tool.Resource, error) {
	return tool.Resource{
		URI:       "test://embedded-resource",
		MediaType: "text/plain",
		Text:      "This is an embedded resource content.",
	}, nil
}

// MultipleContentTypes returns a text, an image and a resource at once.
//
//   - text: A sentence.
//   - image: A one-pixel PNG image.
//   - resource: A resource, by URI and content.
//
//tool:method id=test_multiple_content_types op=read permission="run conformance tests"
//tool:output image media=image/png
func (s *Service) MultipleContentTypes(ctx context.Context) (text string, image []byte, resource tool.Resource, err error) {
	return "Multiple content types test:", png, tool.Resource{
		URI:       "test://mixed-content-resource",
		MediaType: "application/json",
		Text:      `{"test":"data","value":123}`,
	}, nil
}

// pause waits for d or until ctx is done.
func pause(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// ToolWithLogging sends three log messages at info level while it runs,
// 50 milliseconds apart.
//
// Returns a sentence saying it ran.
//
//tool:method id=test_tool_with_logging op=read permission="run conformance tests"
func (s *Service) ToolWithLogging(ctx context.Context) (string, error) {
	for i, msg := range []string{"Tool execution started", "Tool processing data", "Tool execution completed"} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return "", err
			}
		}
		tool.Log(ctx, "info", msg)
	}
	return "Tool with logging executed successfully", nil
}

// ToolWithProgress reports its progress three times while it runs: 0, 50
// and 100 of 100, 50 milliseconds apart.
//
// Returns a sentence saying it ran.
//
//tool:method id=test_tool_with_progress op=read permission="run conformance tests"
func (s *Service) ToolWithProgress(ctx context.Context) (string, error) {
	for i, done := range []float64{0, 50, 100} {
		if i > 0 {
			if err := pause(ctx, 50*time.Millisecond); err != nil {
				return "", err
			}
		}
		tool.Progress(ctx, done, 100, fmt.Sprintf("Completed step %.0f of 100", done))
	}
	return "Tool with progress executed successfully", nil
}

// ErrorHandling always fails, to show how a failure reaches the client.
//
//tool:method id=test_error_handling op=read permission="run conformance tests"
func (s *Service) ErrorHandling(ctx context.Context) error {
	return errors.New("this tool intentionally returns an error for testing")
}

// Sampling asks the client's language model to answer a prompt.
//
//   - prompt: The prompt to send to the model.
//
// Returns the model's answer.
//
//tool:method id=test_sampling op=read permission="run conformance tests"
func (s *Service) Sampling(ctx context.Context, prompt string) (string, error) {
	answer, err := tool.Sample(ctx, prompt, 100)
	if err != nil {
		return "", err
	}
	return "LLM response: " + answer, nil
}

// Elicitation asks the client's person for a user name and an email
// address.
//
//   - message: The message to show the person.
//
// Returns the person's answer.
//
//tool:method id=test_elicitation op=read permission="run conformance tests"
func (s *Service) Elicitation(ctx context.Context, message string) (string, error) {
	ans, err := tool.Elicit(ctx, message, &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"username": {Type: "string", Description: "User's response"},
			"email":    {Type: "string", Description: "User's email address"},
		},
		Required: []string{"username", "email"},
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("User response: action=%s, content=%v", ans.Action, ans.Content), nil
}

// An Address is where a person lives.
type Address struct {
	// Street is the street and house number.
	Street string `json:"street,omitempty"`
	// City is the city.
	City string `json:"city,omitempty"`
}

// A ContactMethod is how a person wants to be reached.
type ContactMethod string

// The contact methods.
const (
	ByPhone ContactMethod = "phone"
	ByEmail ContactMethod = "email"
)

// JSONSchema202012 takes a contact's details, to show their input schema in
// JSON Schema 2020-12.
//
//   - name: The contact's name.
//   - address: Where the contact lives.
//   - contactMethod: How the contact wants to be reached.
//   - phone: The contact's phone number.
//   - email: The contact's email address.
//
// Returns the details it was given.
//
//tool:method id=json_schema_2020_12_tool label="JSON Schema 2020-12" op=read permission="run conformance tests"
//tool:input email type=email
func (s *Service) JSONSchema202012(ctx context.Context, name *string, address *Address, contactMethod *ContactMethod, phone, email *string) (string, error) {
	text := "JSON Schema 2020-12 tool called with:"
	if name != nil {
		text += " name=" + *name
	}
	if address != nil {
		text += fmt.Sprintf(" address=%s, %s", address.Street, address.City)
	}
	if contactMethod != nil {
		text += " contact_method=" + string(*contactMethod)
	}
	if phone != nil {
		text += " phone=" + *phone
	}
	if email != nil {
		text += " email=" + *email
	}
	return text, nil
}

// ElicitationDefaults asks the client's person for values of every
// primitive type, each with a default the client shows.
//
// Returns the person's answer.
//
//tool:method id=test_elicitation_sep1034_defaults op=read permission="run conformance tests"
func (s *Service) ElicitationDefaults(ctx context.Context) (string, error) {
	def := func(v string) json.RawMessage { return json.RawMessage(v) }
	ans, err := tool.Elicit(ctx, "Test defaults for primitives", &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"name":     {Type: "string", Description: "User name", Default: def(`"John Doe"`)},
			"age":      {Type: "integer", Description: "User age", Default: def(`30`)},
			"score":    {Type: "number", Description: "User score", Default: def(`95.5`)},
			"status":   {Type: "string", Description: "User status", Enum: []any{"active", "inactive", "pending"}, Default: def(`"active"`)},
			"verified": {Type: "boolean", Description: "Verification status", Default: def(`true`)},
		},
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Elicitation result: action=%s, content=%v", ans.Action, ans.Content), nil
}

// ElicitationEnums asks the client's person to choose from lists given in
// each of the forms the protocol allows: plain enums, titled one-of and
// any-of lists, legacy enum names, and multiple choice.
//
// Returns the person's answer.
//
//tool:method id=test_elicitation_sep1330_enums op=read permission="run conformance tests"
func (s *Service) ElicitationEnums(ctx context.Context) (string, error) {
	titled := func() []*jsonschema.Schema {
		var out []*jsonschema.Schema
		for i, title := range []string{"First Option", "Second Option", "Third Option"} {
			var v any = fmt.Sprintf("value%d", i+1)
			out = append(out, &jsonschema.Schema{Const: &v, Title: title})
		}
		return out
	}
	options := []any{"option1", "option2", "option3"}
	ans, err := tool.Elicit(ctx, "Test enum schemas", &jsonschema.Schema{
		Type: "object",
		Properties: map[string]*jsonschema.Schema{
			"untitledSingle": {Type: "string", Enum: options},
			"titledSingle":   {Type: "string", OneOf: titled()},
			"legacyEnum": {Type: "string", Enum: []any{"opt1", "opt2", "opt3"},
				Extra: map[string]any{"enumNames": []string{"Option One", "Option Two", "Option Three"}}},
			"untitledMulti": {Type: "array", MinItems: jsonschema.Ptr(1), MaxItems: jsonschema.Ptr(3),
				Items: &jsonschema.Schema{Type: "string", Enum: options}},
			"titledMulti": {Type: "array", MinItems: jsonschema.Ptr(1), MaxItems: jsonschema.Ptr(3),
				Items: &jsonschema.Schema{Type: "string", AnyOf: titled()}},
		},
	})
	if err != nil {
		return "", err
	}
	return fmt.Sprintf("Elicitation result: action=%s, content=%v", ans.Action, ans.Content), nil
}
