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

// Tracing puts one server's admission in its recorded requests' traces: Plugins decorates each
// plugin, Phases wraps the whole of admission. It counts the plugins it decorated, so that a
// phase's span has room for their events from its start.
type Tracing struct {
	// Written while admission is built, before the server serves.
	mutators, validators int
}

// Phases gives each phase of admission its span. It wraps the whole of admission (the generic
// configuration's AdmissionControl), where Plugins decorates each plugin.
func (t *Tracing) Phases(inner admission.Interface) admission.Interface {
	return tracedPhases{Interface: inner, tracing: t}
}

type tracedPhases struct {
	admission.Interface
	tracing *Tracing
}

func (p tracedPhases) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	mutator, ok := p.Interface.(admission.MutationInterface)
	if !ok {
		return nil
	}
	ctx, end := startPhase(ctx, "mutating", p.tracing.mutators, a)
	err := mutator.Admit(ctx, a, o)
	end(err)
	return err
}

func (p tracedPhases) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	validator, ok := p.Interface.(admission.ValidationInterface)
	if !ok {
		return nil
	}
	ctx, end := startPhase(ctx, "validating", p.tracing.validators, a)
	err := validator.Validate(ctx, a, o)
	end(err)
	return err
}

func startPhase(ctx context.Context, phase string, plugins int, a admission.Attributes) (context.Context, func(error)) {
	if !tracing.Recording(ctx) {
		return ctx, func(error) {}
	}
	ctx, span := tracing.Start(ctx, tracing.AdmissionSpanName(phase),
		attribute.String(tracing.AttrAdmissionPhase, phase),
		attribute.String(tracing.AttrAdmissionOperation, string(a.GetOperation())))
	tracing.ExpectPluginEvents(span, plugins)
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}

// Plugins decorates each admission plugin so that every one that runs on a recorded request is
// an event of its phase's span (Phases).
//
// The decorated plugin is a mutator, a validator or both exactly as the plugin is: admission's
// chain and the decorators after this one (the admission metrics) ask a plugin which phases it
// takes part in, and a validator that looked like a mutator too would be run, and measured, in
// the mutating phase. So Plugins must come first of the decorators.
func (t *Tracing) Plugins() admission.Decorator {
	return admission.DecoratorFunc(func(plugin admission.Interface, name string) admission.Interface {
		p := tracedPlugin{Interface: plugin, name: name}
		_, mutates := plugin.(admission.MutationInterface)
		_, validates := plugin.(admission.ValidationInterface)
		if mutates {
			t.mutators++
		}
		if validates {
			t.validators++
		}
		switch {
		case mutates && validates:
			return tracedMutatorValidator{p}
		case mutates:
			return tracedMutator{p}
		case validates:
			return tracedValidator{p}
		}
		return plugin
	})
}

type tracedPlugin struct {
	admission.Interface
	name string
}

type tracedMutator struct{ tracedPlugin }

type tracedValidator struct{ tracedPlugin }

type tracedMutatorValidator struct{ tracedPlugin }

func (p tracedMutator) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	return p.admit(ctx, a, o)
}

func (p tracedValidator) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	return p.validate(ctx, a, o)
}

func (p tracedMutatorValidator) Admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	return p.admit(ctx, a, o)
}

func (p tracedMutatorValidator) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	return p.validate(ctx, a, o)
}

func (p tracedPlugin) admit(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	start := time.Now()
	err := p.Interface.(admission.MutationInterface).Admit(ctx, a, o)
	p.note(ctx, start, err)
	return err
}

func (p tracedPlugin) validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	start := time.Now()
	err := p.Interface.(admission.ValidationInterface).Validate(ctx, a, o)
	p.note(ctx, start, err)
	return err
}

// note adds the plugin's event to the phase's span, if it is recorded.
func (p tracedPlugin) note(ctx context.Context, start time.Time, err error) {
	if span := trace.SpanFromContext(ctx); span.IsRecording() {
		tracing.AddPluginEvent(span, p.name, start, err)
	}
}
