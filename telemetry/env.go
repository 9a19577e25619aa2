package telemetry

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
)

// FromEnv returns a Telemetry configured by the standard OTEL_* environment
// variables, and the function that flushes and stops its exporters. It is
// off (a Telemetry that records nothing, and a shutdown that does nothing)
// unless a variable asks for an exporter:
//
//   - OTEL_EXPORTER_OTLP_ENDPOINT (or OTEL_EXPORTER_OTLP_TRACES_ENDPOINT,
//     OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) set turns on the OTLP/HTTP
//     exporter of spans (or metrics), which reads the other
//     OTEL_EXPORTER_OTLP_* variables (headers, timeout, compression,
//     certificates) itself;
//   - OTEL_TRACES_EXPORTER or OTEL_METRICS_EXPORTER "otlp" turns the
//     exporter on at its default endpoint (http://localhost:4318), "none"
//     keeps it off whatever the endpoint; other values are refused;
//   - OTEL_EXPORTER_OTLP_PROTOCOL (and its per-signal forms) may only be
//     http/protobuf;
//   - OTEL_SDK_DISABLED=true turns everything off;
//   - OTEL_SERVICE_NAME and OTEL_RESOURCE_ATTRIBUTES name the service,
//     OTEL_TRACES_SAMPLER and OTEL_TRACES_SAMPLER_ARG choose the sampler,
//     OTEL_METRIC_EXPORT_INTERVAL the export interval, as the SDK reads
//     them.
//
// serviceName is the service.name when OTEL_SERVICE_NAME is unset.
func FromEnv(ctx context.Context, serviceName string) (*Telemetry, func(context.Context) error, error) {
	none := func(context.Context) error { return nil }
	if strings.EqualFold(os.Getenv("OTEL_SDK_DISABLED"), "true") {
		t, err := New(nil)
		return t, none, err
	}
	traces, err := wanted("OTEL_TRACES_EXPORTER", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")
	if err != nil {
		return nil, none, err
	}
	metrics, err := wanted("OTEL_METRICS_EXPORTER", "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT")
	if err != nil {
		return nil, none, err
	}
	for _, v := range []string{"OTEL_EXPORTER_OTLP_PROTOCOL", "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL", "OTEL_EXPORTER_OTLP_METRICS_PROTOCOL"} {
		if p := os.Getenv(v); p != "" && p != "http/protobuf" {
			return nil, none, fmt.Errorf("telemetry: %s=%q: only http/protobuf is supported", v, p)
		}
	}
	if !traces && !metrics {
		t, err := New(nil)
		return t, none, err
	}
	res, err := resource.Merge(resource.Default(), resource.Environment())
	if err != nil {
		return nil, none, fmt.Errorf("telemetry: resource: %w", err)
	}
	if os.Getenv("OTEL_SERVICE_NAME") == "" && serviceName != "" {
		if r, err := resource.New(ctx, resource.WithAttributes(attribute.String("service.name", serviceName))); err == nil {
			if merged, err := resource.Merge(res, r); err == nil {
				res = merged
			}
		}
	}
	var opts Options
	var stops []func(context.Context) error
	if traces {
		exp, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, none, fmt.Errorf("telemetry: OTLP trace exporter: %w", err)
		}
		tp := sdktrace.NewTracerProvider(sdktrace.WithBatcher(exp), sdktrace.WithResource(res))
		opts.TracerProvider = tp
		stops = append(stops, tp.Shutdown)
	}
	if metrics {
		exp, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, none, fmt.Errorf("telemetry: OTLP metric exporter: %w", err)
		}
		mp := sdkmetric.NewMeterProvider(sdkmetric.WithReader(sdkmetric.NewPeriodicReader(exp)), sdkmetric.WithResource(res))
		opts.MeterProvider = mp
		stops = append(stops, mp.Shutdown)
	}
	t, err := New(&opts)
	shutdown := func(ctx context.Context) error {
		var errs []error
		for _, stop := range stops {
			errs = append(errs, stop(ctx))
		}
		return errors.Join(errs...)
	}
	return t, shutdown, err
}

// wanted reports whether the exporter that the variable named exporter
// chooses ("otlp", "none" or unset) is on, an endpoint variable (the
// signal's own, or OTEL_EXPORTER_OTLP_ENDPOINT) turning it on when unset.
func wanted(exporter, endpoint string) (bool, error) {
	switch v := strings.TrimSpace(os.Getenv(exporter)); v {
	case "none":
		return false, nil
	case "otlp":
		return true, nil
	case "":
		return os.Getenv(endpoint) != "" || os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != "", nil
	default:
		return false, fmt.Errorf("telemetry: %s=%q: only otlp and none are supported", exporter, v)
	}
}
