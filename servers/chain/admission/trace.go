package admission

import (
	"context"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
	"k8s.io/apiserver/pkg/admission"

	"github.com/apichain/apichain/internal/tracing"
)

// Admission in a recorded request's trace: one span for each phase that runs (mutating,
// validating; tracing.AdmissionSpanName), with the operation and the error admission answered,
// and in it one event for each plugin that ran, with when it started, how long it took, and
// the error it answered (`chain trace` prints the events as the phase's steps). The webhook
// plugins' own calls are k8s.io/apiserver's spans ("Call mutating webhook", "Call validating
// webhook"), children of their phase's.
//
// A span for each plugin would show the same, at the cost of a span each: a write passes some
// fifteen plugins, most of which only look at the object's kind; an event costs a fraction of
// a span.

// TracedPhases gives each phase of admission its span. It wraps the whole of admission (the
// generic configuration's AdmissionControl), where Traced decorates each plugin.
func TracedPhases(inner admission.Interface) admission.Interface {
	return tracedPhases{Interface: inner}
}

type tracedPhases struct{ admission.Interface }

func (p tracedPhases) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	mutator, ok := p.Interface.(admission.MutationInterface)
	if !ok {
		return nil
	}
	ctx, end := startPhase(ctx, "mutating", a)
	err := mutator.Admit(ctx, a, o)
	end(err)
	return err
}

func (p tracedPhases) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	validator, ok := p.Interface.(admission.ValidationInterface)
	if !ok {
		return nil
	}
	ctx, end := startPhase(ctx, "validating", a)
	err := validator.Validate(ctx, a, o)
	end(err)
	return err
}

func startPhase(ctx context.Context, phase string, a admission.Attributes) (context.Context, func(error)) {
	if !tracing.Recording(ctx) {
		return ctx, func(error) {}
	}
	ctx, span := tracing.Start(ctx, tracing.AdmissionSpanName(phase),
		attribute.String(tracing.AttrAdmissionPhase, phase),
		attribute.String(tracing.AttrAdmissionOperation, string(a.GetOperation())))
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// Traced decorates each admission plugin so that every one that runs on a recorded request is
// an event of its phase's span (TracedPhases).
//
// It must decorate the plugins as they are (first of the decorators): a plugin that is only a
// validator runs in no mutating phase, and the reverse.
func Traced() admission.Decorator {
	return admission.DecoratorFunc(func(plugin admission.Interface, name string) admission.Interface {
		return tracedPlugin{Interface: plugin, name: name}
	})
}

type tracedPlugin struct {
	admission.Interface
	name string
}

func (p tracedPlugin) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	mutator, ok := p.Interface.(admission.MutationInterface)
	if !ok {
		return nil
	}
	start := time.Now()
	err := mutator.Admit(ctx, a, o)
	p.note(ctx, start, err)
	return err
}

func (p tracedPlugin) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	validator, ok := p.Interface.(admission.ValidationInterface)
	if !ok {
		return nil
	}
	start := time.Now()
	err := validator.Validate(ctx, a, o)
	p.note(ctx, start, err)
	return err
}

// note adds the plugin's event to the phase's span, if it is recorded.
func (p tracedPlugin) note(ctx context.Context, start time.Time, err error) {
	span := trace.SpanFromContext(ctx)
	if !span.IsRecording() {
		return
	}
	attrs := []attribute.KeyValue{
		attribute.String(tracing.AttrAdmissionPlugin, p.name),
		attribute.Float64(tracing.AttrDurationMs, float64(time.Since(start).Microseconds())/1000),
	}
	if err != nil {
		attrs = append(attrs, attribute.String(tracing.AttrError, err.Error()))
	}
	tracing.AddEvent(span, p.name, start, attrs...)
}
