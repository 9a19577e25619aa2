module github.com/toolapi/toolapi/contrib/openai

go 1.26.0

require (
	github.com/google/go-cmp v0.7.0
	github.com/openai/openai-go/v3 v3.99.0
	github.com/toolapi/toolapi v0.0.0-00010101000000-000000000000
)

replace github.com/toolapi/toolapi => ../..

require (
	github.com/coder/websocket v1.8.15 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/tidwall/gjson v1.20.0 // indirect
	github.com/tidwall/match v1.2.0 // indirect
	github.com/tidwall/pretty v1.2.1 // indirect
	github.com/tidwall/sjson v1.2.5 // indirect
)
