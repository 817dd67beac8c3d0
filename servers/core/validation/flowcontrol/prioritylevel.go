package flowcontrol

import (
	"fmt"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/apis/flowcontrol/bootstrap"
	"k8s.io/apiserver/pkg/util/shufflesharding"

	"github.com/apichain/apichain/servers/core/defaults/flowcontrol"
	"github.com/apichain/apichain/servers/core/validation"
)

// maxQueues is how many queues a priority level may have.
const maxQueues = 10 * 1000 * 1000

// ValidatePriorityLevelConfiguration is the rule list of a new PriorityLevelConfiguration.
func ValidatePriorityLevelConfiguration(pl *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	errs := validation.Join(
		validation.Meta(&pl.ObjectMeta, false, validation.SubdomainName, metadata),
		priorityLevelSpec(pl.Name, &pl.Spec),
	)
	if fixed := mandatoryPriorityLevel(pl.Name); fixed != nil {
		got := pl.Spec
		msg := fmt.Sprintf("spec of '%s' must equal the fixed value", pl.Name)
		if pl.Name == flowcontrolv1.PriorityLevelConfigurationNameExempt {
			// The exempt level's shares and lending are the administrator's to set.
			got.Exempt, fixed.Spec.Exempt = nil, nil
			msg = fmt.Sprintf("spec of '%s' except the 'spec.exempt' field must equal the fixed value", pl.Name)
		}
		errs = append(errs, validation.When(!equality.Semantic.DeepEqual(got, fixed.Spec), field.Invalid(spec, validation.Internal(pl.Spec), msg))...)
	}
	return append(errs, conditionTypes(pl.Status.Conditions, priorityLevelConditionType)...)
}

// ValidatePriorityLevelConfigurationUpdate is the rule list of an update: the level as if new.
func ValidatePriorityLevelConfigurationUpdate(pl, _ *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	return ValidatePriorityLevelConfiguration(pl)
}

// ValidatePriorityLevelConfigurationStatusUpdate checks the conditions a status update writes.
func ValidatePriorityLevelConfigurationStatusUpdate(pl, _ *flowcontrolv1.PriorityLevelConfiguration) field.ErrorList {
	return conditionTypes(pl.Status.Conditions, priorityLevelConditionType)
}

// priorityLevelSpec: the level named exempt is the Exempt one; a Limited level says how it is
// limited, an Exempt one may say what it holds and lends.
func priorityLevelSpec(name string, s *flowcontrolv1.PriorityLevelConfigurationSpec) field.ErrorList {
	typ := spec.Child("type")
	errs := validation.When((name == flowcontrolv1.PriorityLevelConfigurationNameExempt) != (s.Type == flowcontrolv1.PriorityLevelEnablementExempt),
		field.Invalid(typ, s.Type, "must be 'Exempt' if and only if `name` is 'exempt'"))
	switch s.Type {
	case flowcontrolv1.PriorityLevelEnablementExempt:
		errs = append(errs, validation.When(s.Limited != nil, field.Forbidden(spec.Child("limited"), "must be nil if the type is not Limited").MarkCoveredByDeclarative())...)
		errs = append(errs, validation.IfSet(spec.Child("exempt"), s.Exempt, exempt)...)
	case flowcontrolv1.PriorityLevelEnablementLimited:
		errs = append(errs, validation.When(s.Exempt != nil, field.Forbidden(spec.Child("exempt"), "must be nil if the type is Limited").MarkCoveredByDeclarative())...)
		if s.Limited == nil {
			return append(errs, field.Required(spec.Child("limited"), "must not be empty when type is Limited").MarkCoveredByDeclarative())
		}
		errs = append(errs, limited(spec.Child("limited"), s.Limited)...)
	case "":
		errs = append(errs, field.Required(typ, "").MarkCoveredByDeclarative())
	default:
		errs = append(errs, field.NotSupported(typ, s.Type,
			[]flowcontrolv1.PriorityLevelEnablement{flowcontrolv1.PriorityLevelEnablementExempt, flowcontrolv1.PriorityLevelEnablementLimited}))
	}
	return errs
}

// exempt: shares not negative, lending a percentage.
func exempt(p *field.Path, e flowcontrolv1.ExemptPriorityLevelConfiguration) field.ErrorList {
	return validation.Join(
		shares(p.Child("nominalConcurrencyShares"), e.NominalConcurrencyShares),
		percent(p.Child("lendablePercent"), e.LendablePercent),
	)
}

// limited: shares not negative (zero makes a level that runs nothing), lending a percentage,
// borrowing not negative, and what to do with the requests that exceed the limit.
func limited(p *field.Path, l *flowcontrolv1.LimitedPriorityLevelConfiguration) field.ErrorList {
	return validation.Join(
		shares(p.Child("nominalConcurrencyShares"), l.NominalConcurrencyShares),
		limitResponse(p.Child("limitResponse"), &l.LimitResponse),
		percent(p.Child("lendablePercent"), l.LendablePercent),
		validation.IfSet(p.Child("borrowingLimitPercent"), l.BorrowingLimitPercent, func(p *field.Path, v int32) field.ErrorList {
			return validation.When(v < 0, field.Invalid(p, v, "if specified, must be a non-negative integer"))
		}),
	)
}

func shares(p *field.Path, n *int32) field.ErrorList {
	return validation.IfSet(p, n, func(p *field.Path, v int32) field.ErrorList {
		return validation.When(v < 0, field.Invalid(p, v, "must be a non-negative integer"))
	})
}

func percent(p *field.Path, n *int32) field.ErrorList {
	return validation.IfSet(p, n, func(p *field.Path, v int32) field.ErrorList {
		return validation.When(v < 0 || v > 100, field.Invalid(p, v, "must be between 0 and 100, inclusive"))
	})
}

// limitResponse: rejected requests need no queues, queued ones do.
func limitResponse(p *field.Path, r *flowcontrolv1.LimitResponse) field.ErrorList {
	queuing := p.Child("queuing")
	switch r.Type {
	case flowcontrolv1.LimitResponseTypeReject:
		return validation.When(r.Queuing != nil, field.Forbidden(queuing, "must be nil if limited.limitResponse.type is not Limited").MarkCoveredByDeclarative())
	case flowcontrolv1.LimitResponseTypeQueue:
		if r.Queuing == nil {
			return field.ErrorList{field.Required(queuing, "must not be empty if limited.limitResponse.type is Limited").MarkCoveredByDeclarative()}
		}
		return queues(queuing, r.Queuing)
	case "":
		return field.ErrorList{field.Required(p.Child("type"), "").MarkCoveredByDeclarative()}
	}
	return field.ErrorList{field.NotSupported(p.Child("type"), r.Type,
		[]flowcontrolv1.LimitResponseType{flowcontrolv1.LimitResponseTypeQueue, flowcontrolv1.LimitResponseTypeReject})}
}

// queues: positive sizes, and a hand that fits the deck and the shuffle-sharding hash.
func queues(p *field.Path, q *flowcontrolv1.QueuingConfiguration) field.ErrorList {
	positive := func(name string, v int32) field.ErrorList {
		return validation.When(v <= 0, field.Invalid(p.Child(name), v, "must be positive"))
	}
	errs := positive("queueLengthLimit", q.QueueLengthLimit)
	switch {
	case q.Queues <= 0:
		errs = append(errs, positive("queues", q.Queues)...)
	case q.Queues > maxQueues:
		errs = append(errs, field.Invalid(p.Child("queues"), q.Queues, fmt.Sprintf("must not be greater than %d", maxQueues)))
	}
	hand := p.Child("handSize")
	switch {
	case q.HandSize <= 0:
		errs = append(errs, positive("handSize", q.HandSize)...)
	case q.HandSize > q.Queues:
		errs = append(errs, field.Invalid(hand, q.HandSize, fmt.Sprintf("should not be greater than queues (%d)", q.Queues)))
	case shufflesharding.RequiredEntropyBits(int(q.Queues), int(q.HandSize)) > shufflesharding.MaxHashBits:
		errs = append(errs, field.Invalid(hand, q.HandSize, fmt.Sprintf("required entropy bits of deckSize %d and handSize %d should not be greater than %d",
			q.Queues, q.HandSize, shufflesharding.MaxHashBits)))
	}
	return errs
}

func priorityLevelConditionType(c flowcontrolv1.PriorityLevelConfigurationCondition) string {
	return string(c.Type)
}

// mandatoryPriorityLevel is the defaulted bootstrap level of that name that every server must
// have, or nil.
func mandatoryPriorityLevel(name string) *flowcontrolv1.PriorityLevelConfiguration {
	for _, pl := range bootstrap.MandatoryPriorityLevelConfigurations {
		if pl.Name == name {
			fixed := pl.DeepCopy()
			flowcontrol.SetObjectDefaults_PriorityLevelConfiguration(fixed)
			return fixed
		}
	}
	return nil
}
