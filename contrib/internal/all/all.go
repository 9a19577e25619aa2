// Package all checks that every adapter under contrib/ builds in one
// module with the others, and that they run a tool alike. It is not for
// import: its test is the whole of it.
package all

import (
	_ "github.com/toolapi/toolapi/contrib/anthropic"
	_ "github.com/toolapi/toolapi/contrib/eino"
	_ "github.com/toolapi/toolapi/contrib/genai"
	_ "github.com/toolapi/toolapi/contrib/genkit"
	_ "github.com/toolapi/toolapi/contrib/langchaingo"
	_ "github.com/toolapi/toolapi/contrib/openai"
)
