// Package resource validates the kinds of resource.k8s.io/v1, dynamic resource allocation, that
// the Core server serves: DeviceClass, DeviceTaintRule, ResourceClaim (and its /status),
// ResourceClaimTemplate and ResourceSlice.
//
// It sits in the Core server of the chain: the Definitions of servers/core/registry/resource
// call these functions as their Validate hooks, after the request is decoded and defaulted and
// after the registry has dropped the fields of features that are off; a non-empty error list
// becomes kube-apiserver's 422 Invalid. The rules, paths and messages are kube-apiserver
// v1.37.2's, as observed.
//
// The group's types carry many generated declarative rules (servers/core/validation/declarative/
// resourcev1), nearly all +k8s:beta and so enforced in v1.37: required fields, the formats of
// class, driver and pool names, enums (allocation modes, taint effects, toleration operators),
// list sizes and uniqueness, unions (a device attribute holds one value), a claim's immutable
// spec and allocation. The rules here are what those do not cover; where kube-apiserver's own
// rule reports the same as a generated one, this package leaves it to the generated one.
//
// Feature gates at their v1.37 defaults: prioritized lists, admin access, device taints and
// tolerations, binding conditions, consumable capacity, partitionable devices and extended
// resource names are on; derived attributes, list-type attributes, compatibility groups,
// node-allocatable resources, optional node operations and partition type attributes are off,
// and the registry drops their fields before these rules run.
//
// Left out: the checks that need the cluster (admin access needs a labelled namespace; who may
// set a claim's allocation or device status) are the registry's, with the request's context.
package resource

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiservercel "k8s.io/apiserver/pkg/cel"
	"k8s.io/apiserver/pkg/cel/environment"
	dracel "k8s.io/dynamic-resource-allocation/cel"

	"github.com/apichain/apichain/servers/core/validation"
)

// Names used all over the group: drivers, pools, devices, requests, attributes.

// declared marks the errors of a rule that a generated declarative rule also reports, so that
// k8s.io/apiserver shows the generated error instead (and logs no mismatch); origin is the
// generated rule's ("maxItems", "format=k8s-long-name"...; "" for Required and NotSupported).
func declared(origin string, errs field.ErrorList) field.ErrorList {
	return validation.Covered(origin, errs)
}

// list: at most max items, each checked. Too many is reported alone (the items are not
// checked then), and is a generated rule too.
func list[T any](p *field.Path, items []T, max int, check func(*field.Path, *T) field.ErrorList) field.ErrorList {
	if len(items) > max {
		return declared("maxItems", field.ErrorList{field.TooMany(p, len(items), max)})
	}
	return validation.Each(p, items, check)
}

// set: a list whose items have different keys (a generated rule too).
func set[T any](p *field.Path, items []T, max int, key func(T) string, check func(*field.Path, *T) field.ErrorList) field.ErrorList {
	errs := list(p, items, max, check)
	if len(items) > max {
		return errs
	}
	keys := make([]string, len(items))
	for i, item := range items {
		keys[i] = key(item)
	}
	return append(errs, declared("", validation.Duplicates(p, keys))...)
}

// itself is the key of a set of strings.
func itself(s string) string { return s }

// driverName: a DRA driver is named like a CSI driver, a DNS subdomain of at most 63
// characters, of which the case does not matter. Where a generated rule checks it too, ours is
// marked so (isDeclared).
func driverName(p *field.Path, name string, isDeclared bool) field.ErrorList {
	mark := func(origin string, errs field.ErrorList) field.ErrorList {
		if isDeclared {
			return declared(origin, errs)
		}
		return errs
	}
	if name == "" {
		return mark("", field.ErrorList{field.Required(p, "")})
	}
	errs := mark("maxLength", validation.When(len(name) > resourcev1.DriverNameMaxLength, field.TooLong(p, "", resourcev1.DriverNameMaxLength)))
	var format field.ErrorList
	for _, msg := range utilvalidation.IsDNS1123Subdomain(strings.ToLower(name)) {
		format = append(format, field.Invalid(p, name, msg))
	}
	return append(errs, mark("format=k8s-long-name-caseless", format)...)
}

// poolName: one or more DNS subdomains joined by '/', at most 253 characters in all.
func poolName(p *field.Path, name string, isDeclared bool) field.ErrorList {
	var errs field.ErrorList
	if name == "" {
		errs = field.ErrorList{field.Required(p, "")}
	} else {
		errs = validation.When(len(name) > resourcev1.PoolNameMaxLength, field.TooLong(p, "", resourcev1.PoolNameMaxLength))
		for part := range strings.SplitSeq(name, "/") {
			errs = append(errs, validation.DNSSubdomain(p, part)...)
		}
		errs = errs.WithOrigin("format=k8s-resource-pool-name")
	}
	if isDeclared {
		return errs.MarkCoveredByDeclarative()
	}
	return errs
}

// qualifiedName: an attribute or capacity name, a C identifier of at most 32 characters,
// optionally after a driver-like domain and '/'.
func qualifiedName(p *field.Path, name string) field.ErrorList {
	domain, id, qualified := strings.Cut(name, "/")
	if !qualified {
		return cIdentifier(p, name)
	}
	var errs field.ErrorList
	if domain == "" {
		errs = append(errs, field.Invalid(p, "", "the domain must not be empty"))
	} else {
		errs = append(errs, driverName(p, domain, false)...)
	}
	if id == "" {
		return append(errs, field.Invalid(p, "", "the name must not be empty"))
	}
	return append(errs, cIdentifier(p, id)...)
}

func cIdentifier(p *field.Path, id string) field.ErrorList {
	errs := validation.When(len(id) > resourcev1.DeviceMaxIDLength, field.TooLong(p, "", resourcev1.DeviceMaxIDLength))
	for _, msg := range content.IsCIdentifier(id) {
		errs = append(errs, field.Invalid(p, id, msg))
	}
	return errs
}

// requestRef: a name in a constraint, a config or an allocation result refers to a request of
// the claim, or to one alternative of a request as "request/alternative".
func requestRef(p *field.Path, ref string, requests requestNames) field.ErrorList {
	const unknown = "must be the name of a request in the claim or the name of a request and a subrequest separated by '/'"
	parts := strings.Split(ref, "/")
	if len(parts) > 2 {
		return field.ErrorList{field.Invalid(p, ref, unknown)}
	}
	var errs field.ErrorList
	for _, part := range parts {
		errs = append(errs, validation.DNSLabel(p, part)...)
	}
	return append(errs, validation.When(!requests.has(parts), field.Invalid(p, ref, unknown))...)
}

// requestRefs: a list of such names, unique and at most as many as a claim has requests (both
// the generated rules' too).
func requestRefs(p *field.Path, refs []string, requests requestNames) field.ErrorList {
	return set(p, refs, resourcev1.DeviceRequestsMaxSize, itself, func(p *field.Path, ref *string) field.ErrorList {
		return requestRef(p, *ref, requests)
	})
}

// requestNames are a claim's requests, each with the names of its alternatives (none for a
// request of exactly one kind of device).
type requestNames map[string][]string

func namesOf(devices *resourcev1.DeviceClaim) requestNames {
	names := requestNames{}
	for _, r := range devices.Requests {
		var alternatives []string
		for _, sub := range r.FirstAvailable {
			alternatives = append(alternatives, sub.Name)
		}
		names[r.Name] = alternatives
	}
	return names
}

func (n requestNames) has(parts []string) bool {
	alternatives, ok := n[parts[0]]
	if !ok || len(parts) == 1 {
		return ok
	}
	for _, a := range alternatives {
		if a == parts[1] {
			return true
		}
	}
	return false
}

// labelName: a taint's key, or a binding condition, is named like a label key.
func labelName(p *field.Path, name string) field.ErrorList {
	return metavalidation.ValidateLabelName(name, p)
}

// celSelector: a device selector is a CEL expression that compiles in the device environment
// and evaluates to a bool, within the cost limit. An expression already stored is not compiled
// again: it compiled when it was stored.
func celSelector(p *field.Path, expression string, stored bool) field.ErrorList {
	if stored {
		return nil
	}
	if len(expression) > resourcev1.CELSelectorExpressionMaxLength {
		return field.ErrorList{field.TooLong(p, "", resourcev1.CELSelectorExpressionMaxLength)}
	}
	env := environment.NewExpressions
	// Consumable capacity is on (beta) and list-type attributes off (alpha) in v1.37.
	result := dracel.GetCompiler(dracel.Features{EnableConsumableCapacity: true}).
		CompileCELExpression(expression, dracel.Options{EnvType: &env})
	if result.Error != nil {
		return field.ErrorList{celError(p, expression, result.Error)}
	}
	return validation.When(result.MaxCost > resourcev1.CELSelectorExpressionMaxCost, field.Forbidden(p, "too complex, exceeds cost limit"))
}

func celError(p *field.Path, expression string, err error) *field.Error {
	var e *apiservercel.Error
	if !errors.As(err, &e) {
		return field.InternalError(p, fmt.Errorf("unsupported error type: %w", err))
	}
	switch e.Type {
	case apiservercel.ErrorTypeRequired:
		return field.Required(p, e.Detail)
	case apiservercel.ErrorTypeInvalid:
		return field.Invalid(p, expression, e.Detail)
	}
	return field.InternalError(p, e)
}

// jsonObject: opaque driver parameters and device data must be a JSON object, within a size
// limit that holds only for what is new.
func jsonObject(p *field.Path, raw runtime.RawExtension, stored bool, max int) field.ErrorList {
	if len(raw.Raw) == 0 {
		return field.ErrorList{field.Required(p, "")}
	}
	if !stored && len(raw.Raw) > max {
		return field.ErrorList{field.TooLong(p, "", max)}
	}
	var v any
	if err := json.Unmarshal(raw.Raw, &v); err != nil {
		return field.ErrorList{field.Invalid(p, "<value omitted>", "error parsing data as JSON: "+err.Error())}
	}
	if v == nil {
		return field.ErrorList{field.Required(p, "")}
	}
	_, isObject := v.(map[string]any)
	return validation.When(!isObject, field.Invalid(p, "<value omitted>", "must be a valid JSON object"))
}

// opaqueConfig: configuration for a driver, passed on as it is: its parameters a JSON object.
func opaqueConfig(p *field.Path, c resourcev1.DeviceConfiguration, stored bool) field.ErrorList {
	if c.Opaque == nil {
		return field.ErrorList{field.Required(p.Child("opaque"), "")}
	}
	p = p.Child("opaque")
	return validation.Join(
		driverName(p.Child("driver"), c.Opaque.Driver, true),
		jsonObject(p.Child("parameters"), c.Opaque.Parameters, stored, resourcev1.OpaqueParametersMaxLength),
	)
}

// effects are a taint's effects, sorted as kube-apiserver lists them.
var effects = []resourcev1.DeviceTaintEffect{resourcev1.DeviceTaintEffectNoExecute, resourcev1.DeviceTaintEffectNoSchedule, resourcev1.DeviceTaintEffectNone}

// toleration: the key (if any) named like a label key; Exists matches any value, Equal one that
// is a label value; an effect (if any) one a taint can have.
func toleration(p *field.Path, t *resourcev1.DeviceToleration) field.ErrorList {
	var errs field.ErrorList
	if t.Key != "" {
		errs = declared("", labelName(p.Child("key"), t.Key))
	}
	operator := p.Child("operator")
	switch t.Operator {
	case resourcev1.DeviceTolerationOpExists:
		errs = append(errs, validation.When(t.Value != "", field.Invalid(p.Child("value"), t.Value, "must be empty for operator `Exists`"))...)
	case resourcev1.DeviceTolerationOpEqual:
		errs = append(errs, validation.LabelValue(p.Child("value"), t.Value)...)
	case "":
		errs = append(errs, declared("", field.ErrorList{field.Required(operator, "")})...)
	default:
		errs = append(errs, declared("", validation.Supported(operator, t.Operator, resourcev1.DeviceTolerationOpEqual, resourcev1.DeviceTolerationOpExists))...)
	}
	if t.Effect != "" {
		errs = append(errs, declared("", validation.Supported(p.Child("effect"), t.Effect, effects...))...)
	}
	return errs
}
