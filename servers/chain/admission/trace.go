package admission

import (
	"context"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"k8s.io/apiserver/pkg/admission"

	"github.com/apichain/apichain/internal/tracing"
)

// Traced decorates each admission plugin so that every one that runs on a recorded request has
// a span in its trace (tracing.AdmissionSpanName): the plugin, the phase, the operation, and
// the error it answered. The webhook plugins' own calls are k8s.io/apiserver's spans ("Call
// mutating webhook", "Call validating webhook"), children of the plugin's.
//
// It must decorate the plugins as they are (first of the decorators): a plugin that is only a
// validator has no mutating span, and the reverse.
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
	ctx, end := p.start(ctx, "mutating", a)
	err := mutator.Admit(ctx, a, o)
	end(err)
	return err
}

func (p tracedPlugin) Validate(ctx context.Context, a admission.Attributes, o admission.ObjectInterfaces) error {
	validator, ok := p.Interface.(admission.ValidationInterface)
	if !ok {
		return nil
	}
	ctx, end := p.start(ctx, "validating", a)
	err := validator.Validate(ctx, a, o)
	end(err)
	return err
}

func (p tracedPlugin) start(ctx context.Context, phase string, a admission.Attributes) (context.Context, func(error)) {
	if !tracing.Recording(ctx) {
		return ctx, func(error) {}
	}
	ctx, span := tracing.Start(ctx, tracing.AdmissionSpanName(phase, p.name),
		attribute.String(tracing.AttrAdmissionPlugin, p.name),
		attribute.String(tracing.AttrAdmissionPhase, phase),
		attribute.String(tracing.AttrAdmissionOperation, string(a.GetOperation())))
	return ctx, func(err error) {
		if err != nil {
			span.SetStatus(codes.Error, err.Error())
		}
		span.End()
	}
}
