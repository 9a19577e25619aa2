//go:build !toolgen

// This file stands in for the tools_gen.go that toolgen writes from the
// //tool: directives of service.go, with the same functions: it builds the
// tools those directives describe by hand, until toolgen publishes []byte
// results as base64 strings and tool.Resource results as resources. Delete
// it when toolgen writes tools_gen.go here.

package main

import (
	"context"

	"github.com/toolapi/toolapi/tool"
)

// ServiceTools returns the tools of Service's methods.
func ServiceTools(svc *Service) []*tool.Tool {
	return []*tool.Tool{
		simpleTextTool(svc), imageContentTool(svc), audioContentTool(svc), embeddedResourceTool(svc),
		multipleContentTypesTool(svc), toolWithLoggingTool(svc), toolWithProgressTool(svc),
		errorHandlingTool(svc), samplingTool(svc), elicitationTool(svc), jsonSchema202012Tool(svc),
	}
}

// RegisterTools adds the tools of Service to r.
func RegisterTools(r *tool.Registry, service *Service) error {
	return r.Add(ServiceTools(service)...)
}

const permission = "run conformance tests"

// readTool returns a read tool of Service that needs permission.
func readTool(id, label, description string) *tool.Tool {
	return &tool.Tool{ID: id, Label: label, Description: description, Operation: tool.OpRead, Permission: permission}
}

// textResult is the output of a method returning (string, error).
func textResult(description string) []*tool.Definition {
	return []*tool.Definition{{Name: "result", Type: "string", Description: description, Required: true}}
}

// result publishes the single result of a method.
func result(v any, err error) (*tool.Result, error) {
	if err != nil {
		return nil, err
	}
	return tool.Succeeded("", map[string]any{"result": v}), nil
}

func simpleTextTool(svc *Service) *tool.Tool {
	t := readTool("test_simple_text", "Simple text", "Returns a fixed sentence.")
	t.Outputs = textResult("The sentence.")
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		return result(svc.SimpleText(ctx))
	}
	return t
}

func imageContentTool(svc *Service) *tool.Tool {
	t := readTool("test_image_content", "Image content", "Returns a one-pixel PNG image.")
	t.Outputs = []*tool.Definition{{Name: "result", Type: "string", Description: "The image.", Required: true,
		Constraints: tool.Constraints{Media: "image/png"}}}
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		return result(svc.ImageContent(ctx))
	}
	return t
}

func audioContentTool(svc *Service) *tool.Tool {
	t := readTool("test_audio_content", "Audio content", "Returns a short WAV recording of silence.")
	t.Outputs = []*tool.Definition{{Name: "result", Type: "string", Description: "The recording.", Required: true,
		Constraints: tool.Constraints{Media: "audio/wav"}}}
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		return result(svc.AudioContent(ctx))
	}
	return t
}

func embeddedResourceTool(svc *Service) *tool.Tool {
	t := readTool("test_embedded_resource", "Embedded resource", "Returns a text resource by URI and content.")
	t.Outputs = []*tool.Definition{tool.ResourceDefinition("result", "The resource.")}
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		return result(svc.EmbeddedResource(ctx))
	}
	return t
}

func multipleContentTypesTool(svc *Service) *tool.Tool {
	t := readTool("test_multiple_content_types", "Multiple content types", "Returns a text, an image and a resource at once.")
	t.Outputs = []*tool.Definition{
		{Name: "text", Type: "string", Description: "A sentence.", Required: true},
		{Name: "image", Type: "string", Description: "A one-pixel PNG image.", Required: true, Constraints: tool.Constraints{Media: "image/png"}},
		tool.ResourceDefinition("resource", "A JSON resource."),
	}
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		text, image, resource, err := svc.MultipleContentTypes(ctx)
		if err != nil {
			return nil, err
		}
		return tool.Succeeded("", map[string]any{"text": text, "image": image, "resource": resource}), nil
	}
	return t
}

func toolWithLoggingTool(svc *Service) *tool.Tool {
	t := readTool("test_tool_with_logging", "Tool with logging", "Sends three log messages at info level while it runs, 50 milliseconds apart.")
	t.Outputs = textResult("A sentence saying it ran.")
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		return result(svc.ToolWithLogging(ctx))
	}
	return t
}

func toolWithProgressTool(svc *Service) *tool.Tool {
	t := readTool("test_tool_with_progress", "Tool with progress", "Reports its progress three times while it runs: 0, 50 and 100 of 100, 50 milliseconds apart.")
	t.Outputs = textResult("A sentence saying it ran.")
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		return result(svc.ToolWithProgress(ctx))
	}
	return t
}

func errorHandlingTool(svc *Service) *tool.Tool {
	t := readTool("test_error_handling", "Error handling", "Always fails, to show how a failure reaches the client.")
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		return nil, svc.ErrorHandling(ctx)
	}
	return t
}

func samplingTool(svc *Service) *tool.Tool {
	t := readTool("test_sampling", "Sampling", "Asks the client's language model to answer a prompt.")
	t.Inputs = []*tool.Definition{{Name: "prompt", Type: "string", Description: "The prompt to send to the model.", Required: true}}
	t.Outputs = textResult("The model's answer.")
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		return result(svc.Sampling(ctx, in.String("prompt")))
	}
	return t
}

func elicitationTool(svc *Service) *tool.Tool {
	t := readTool("test_elicitation", "Elicitation", "Asks the client's person for a user name and an email address.")
	t.Inputs = []*tool.Definition{{Name: "message", Type: "string", Description: "The message to show the person.", Required: true}}
	t.Outputs = textResult("The person's answer.")
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		return result(svc.Elicitation(ctx, in.String("message")))
	}
	return t
}

func jsonSchema202012Tool(svc *Service) *tool.Tool {
	t := readTool("json_schema_2020_12_tool", "JSON Schema 2020-12", "Takes a contact's details, to show their input schema in JSON Schema 2020-12.")
	t.Inputs = []*tool.Definition{
		{Name: "name", Type: "string", Description: "The contact's name."},
		{Name: "address", Type: "map", Description: "Where the contact lives.", Properties: []*tool.Definition{
			{Name: "street", Type: "string", Description: "Street is the street and house number."},
			{Name: "city", Type: "string", Description: "City is the city."},
		}},
		{Name: "contact_method", Type: "string", Description: "How the contact wants to be reached.",
			Constraints: tool.Constraints{Choice: []any{string(ByPhone), string(ByEmail)}}},
		{Name: "phone", Type: "string", Description: "The contact's phone number."},
		{Name: "email", Type: "email", Description: "The contact's email address."},
	}
	t.Outputs = textResult("The details it was given.")
	t.Handler = func(ctx context.Context, in *tool.Values) (*tool.Result, error) {
		str := func(name string) *string {
			if s, ok := in.Get(name).(string); ok {
				return &s
			}
			return nil
		}
		var address *Address
		if m := in.Object("address"); m != nil {
			address = &Address{}
			address.Street, _ = m["street"].(string)
			address.City, _ = m["city"].(string)
		}
		var method *ContactMethod
		if s := str("contact_method"); s != nil {
			m := ContactMethod(*s)
			method = &m
		}
		return result(svc.JSONSchema202012(ctx, str("name"), address, method, str("phone"), str("email")))
	}
	return t
}
