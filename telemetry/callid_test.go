package telemetry_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/toolapi/toolapi/telemetry"
	"github.com/toolapi/toolapi/tool"
)

// TestCallID checks that a run's span records the call ID its context
// carries, and records none without one.
func TestCallID(t *testing.T) {
	f := newFixture(t)
	for _, id := range []string{"call_abc123", ""} {
		ctx := telemetry.WithCallID(tool.WithAccount(context.Background(), echoer), id)
		if _, err := f.reg.RunJSON(ctx, "test.echo", []byte(`{"word":"hi"}`)); err != nil {
			t.Fatal(err)
		}
	}
	var got []string
	for _, s := range f.spans.Ended() {
		id := "(none)"
		for _, kv := range s.Attributes() {
			if kv.Key == "gen_ai.tool.call.id" {
				id = kv.Value.Emit()
			}
		}
		got = append(got, id)
	}
	if diff := cmp.Diff([]string{"call_abc123", "(none)"}, got); diff != "" {
		t.Errorf("gen_ai.tool.call.id of the runs' spans (-want +got):\n%s", diff)
	}
}

// TestEnabled checks what Enabled reports: off without providers or
// exporters, on with either.
func TestEnabled(t *testing.T) {
	for _, v := range []string{"OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT", "OTEL_TRACES_EXPORTER", "OTEL_METRICS_EXPORTER", "OTEL_SDK_DISABLED"} {
		t.Setenv(v, "")
	}
	off, err := telemetry.New(nil)
	if err != nil || off.Enabled() {
		t.Errorf("New(nil): Enabled() = %v (%v), want false", off != nil && off.Enabled(), err)
	}
	if f := newFixture(t); !f.tel.Enabled() {
		t.Error("New with providers: Enabled() = false")
	}
	for _, tc := range []struct {
		env  map[string]string
		want bool
	}{
		{map[string]string{}, false},
		{map[string]string{"OTEL_TRACES_EXPORTER": "none", "OTEL_METRICS_EXPORTER": "none", "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1", "OTEL_SDK_DISABLED": "true"}, false},
		{map[string]string{"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:1"}, true},
		{map[string]string{"OTEL_TRACES_EXPORTER": "otlp", "OTEL_METRICS_EXPORTER": "none"}, true},
	} {
		for k, v := range tc.env {
			t.Setenv(k, v)
		}
		tel, shutdown, err := telemetry.FromEnv(context.Background(), "test")
		if err != nil {
			t.Fatalf("FromEnv with %v: %v", tc.env, err)
		}
		if tel.Enabled() != tc.want {
			t.Errorf("FromEnv with %v: Enabled() = %v, want %v", tc.env, tel.Enabled(), tc.want)
		}
		shutdown(context.Background())
		for k := range tc.env {
			t.Setenv(k, "")
		}
	}
}
