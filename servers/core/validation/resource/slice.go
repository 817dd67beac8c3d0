package resource

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"gopkg.in/inf.v0"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
	"github.com/apichain/apichain/servers/core/validation/pods"
)

// ValidateResourceSlice is the rule list of a new ResourceSlice: which driver publishes it, the
// pool it belongs to, which nodes can reach its devices, and the devices themselves.
func ValidateResourceSlice(s *resourcev1.ResourceSlice) field.ErrorList {
	return validation.Join(
		validation.Meta(&s.ObjectMeta, false, validation.SubdomainName, metadata),
		sliceSpec(&s.Spec, nil),
	)
}

// ValidateResourceSliceUpdate: a slice may change but for its driver, pool and node; devices
// whose capacity or taints did not change are not checked again there.
func ValidateResourceSliceUpdate(s, old *resourcev1.ResourceSlice) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&s.ObjectMeta, &old.ObjectMeta, metadata),
		sliceSpec(&s.Spec, &old.Spec),
	)
}

func sliceSpec(s, old *resourcev1.ResourceSliceSpec) field.ErrorList {
	errs := validation.Join(
		driverName(spec.Child("driver"), s.Driver, false),
		poolName(spec.Child("pool", "name"), s.Pool.Name, false),
		validation.When(s.Pool.ResourceSliceCount <= 0, field.Invalid(spec.Child("pool", "resourceSliceCount"), s.Pool.ResourceSliceCount, "must be greater than zero")),
		validation.When(s.Pool.Generation < 0, field.Invalid(spec.Child("pool", "generation"), s.Pool.Generation, "must be greater than or equal to zero")),
	)
	if old != nil {
		errs = append(errs, validation.Join(
			validation.Immutable(spec.Child("pool", "name"), s.Pool.Name, old.Pool.Name),
			validation.Immutable(spec.Child("driver"), s.Driver, old.Driver),
			validation.Immutable(spec.Child("nodeName"), s.NodeName, old.NodeName),
		)...)
	}
	errs = append(errs, nodeSelection(s)...)
	errs = append(errs, validation.When(s.SharedCounters != nil && s.Devices != nil, field.Invalid(spec, "", "only one of `sharedCounters` or `devices` is allowed"))...)
	errs = append(errs, devices(spec.Child("devices"), s, old)...)
	return append(errs, counterSets(spec.Child("sharedCounters"), s.SharedCounters)...)
}

// counterSets: the counters that devices of the pool consume, in at most 8 uniquely named sets.
func counterSets(p *field.Path, sets []resourcev1.CounterSet) field.ErrorList {
	return set(p, sets, resourcev1.ResourceSliceMaxCounterSets, func(c resourcev1.CounterSet) string { return c.Name },
		func(p *field.Path, c *resourcev1.CounterSet) field.ErrorList {
			return counters(p, "name", c.Name, c.Counters, resourcev1.ResourceSliceMaxCountersPerCounterSet)
		})
}

// counters: a counter set, or what a device consumes of one: the set's name (a DNS label) and
// at most limit counters, each named by a DNS label. All but the limit are generated rules too.
func counters(p *field.Path, setField, set string, list map[string]resourcev1.Counter, limit int) field.ErrorList {
	var errs field.ErrorList
	if set == "" {
		errs = declared("", field.ErrorList{field.Required(p.Child(setField), "")})
	} else {
		errs = declared("format=k8s-short-name", validation.DNSLabel(p.Child(setField), set))
	}
	if len(list) == 0 {
		return append(errs, declared("", field.ErrorList{field.Required(p.Child("counters"), "")})...)
	}
	if len(list) > limit {
		return append(errs, field.TooMany(p.Child("counters"), len(list), limit))
	}
	for name := range list {
		errs = append(errs, declared("format=k8s-short-name", validation.DNSLabel(p.Child("counters"), name))...)
	}
	return errs
}

// nodeSelection: the slice's devices are on one node, on the nodes a selector picks, on every
// node, or each device says for itself; exactly one of these.
func nodeSelection(s *resourcev1.ResourceSliceSpec) field.ErrorList {
	set, errs := where{s.NodeName, s.NodeSelector, s.AllNodes}.check(spec, "must be either unset or set to a non-empty string")
	if s.NodeSelector != nil {
		// One term, so that the selectors of devices from several slices can be merged.
		errs = append(errs, validation.When(len(s.NodeSelector.NodeSelectorTerms) != 1,
			field.Invalid(spec.Child("nodeSelector", "nodeSelectorTerms"), s.NodeSelector.NodeSelectorTerms, "must have exactly one node selector term"))...)
	}
	set, errs = trueOrUnset(spec.Child("perDeviceNodeSelection"), s.PerDeviceNodeSelection, "`perDeviceNodeSelection`", set, errs)
	const which = "exactly one of `nodeName`, `nodeSelector`, `allNodes`, `perDeviceNodeSelection` is required"
	return append(errs, exactlyOne(spec, set, which, which+", but multiple fields are set")...)
}

// where says which nodes have devices: one by name, those a selector picks, or all.
type where struct {
	name     *string
	selector *corev1.NodeSelector
	all      *bool
}

// check returns which of the three are set, and what is wrong with them (emptyName: what an
// empty name is told).
func (w where) check(p *field.Path, emptyName string) ([]string, field.ErrorList) {
	var set []string
	var errs field.ErrorList
	if w.name != nil {
		if *w.name == "" {
			errs = append(errs, field.Invalid(p.Child("nodeName"), "", emptyName))
		} else {
			set = append(set, "`nodeName`")
			errs = append(errs, nodeName(p.Child("nodeName"), *w.name)...)
		}
	}
	if w.selector != nil {
		set = append(set, "`nodeSelector`")
		errs = append(errs, pods.NodeSelector(p.Child("nodeSelector"), *w.selector)...)
	}
	set, errs = trueOrUnset(p.Child("allNodes"), w.all, "`allNodes`", set, errs)
	return set, errs
}

// exactlyOne: of a one-of, set must name one member: none is Required (missing), several
// Invalid (tooMany), listing them.
func exactlyOne(p *field.Path, set []string, missing, tooMany string) field.ErrorList {
	switch len(set) {
	case 0:
		return field.ErrorList{field.Required(p, missing)}
	case 1:
		return nil
	}
	return field.ErrorList{field.Invalid(p, "{"+strings.Join(set, ", ")+"}", tooMany)}
}

// trueOrUnset: a flag of a one-of is either left out or true; when true, it counts as set.
func trueOrUnset(p *field.Path, flag *bool, name string, set []string, errs field.ErrorList) ([]string, field.ErrorList) {
	switch {
	case flag == nil:
	case *flag:
		set = append(set, name)
	default:
		errs = append(errs, field.Invalid(p, false, "must be either unset or set to true"))
	}
	return set, errs
}

// nodeName: a node's name is a DNS subdomain.
func nodeName(p *field.Path, name string) field.ErrorList {
	return validation.DNSSubdomain(p, name)
}

// devices: at most 128 devices with unique names, 64 when any of them has taints or consumes
// counters (what a scheduler has to compute grows with them).
func devices(p *field.Path, s, old *resourcev1.ResourceSliceSpec) field.ErrorList {
	limit := resourcev1.ResourceSliceMaxDevices
	for _, d := range s.Devices {
		if len(d.Taints) > 0 || len(d.ConsumesCounters) > 0 {
			limit = resourcev1.ResourceSliceMaxDevicesWithAdvancedFeatures
		}
	}
	if len(s.Devices) > limit {
		return field.ErrorList{field.TooMany(p, len(s.Devices), limit)}
	}
	perDevice := s.PerDeviceNodeSelection != nil && *s.PerDeviceNodeSelection
	var names []string
	errs := validation.Each(p, s.Devices, func(p *field.Path, d *resourcev1.Device) field.ErrorList {
		names = append(names, d.Name)
		return device(p, d, sameDevice(old, d.Name), perDevice)
	})
	return append(errs, validation.Duplicates(p, names)...)
}

// sameDevice is the device of the stored slice with the same name, if any.
func sameDevice(old *resourcev1.ResourceSliceSpec, name string) *resourcev1.Device {
	if old == nil {
		return nil
	}
	for i := range old.Devices {
		if old.Devices[i].Name == name {
			return &old.Devices[i]
		}
	}
	return nil
}

// device: a DNS label for a name, attributes and capacities within their limits, taints,
// counters consumed, where it is (when the slice says each device does) and binding
// conditions. Capacity and taints that did not change are not checked again.
func device(p *field.Path, d, old *resourcev1.Device, perDevice bool) field.ErrorList {
	errs := validation.DNSLabel(p.Child("name"), d.Name)
	if n := len(d.Attributes) + len(d.Capacity); n > resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice {
		errs = append(errs, field.Invalid(p, n, fmt.Sprintf("the total number of attributes and capacities must not exceed %d", resourcev1.ResourceSliceMaxAttributesAndCapacitiesPerDevice)))
	}
	if n := len(d.Attributes); n > resourcev1.ResourceSliceMaxAttributeValuesPerDevice {
		errs = append(errs, field.Invalid(p, n, fmt.Sprintf("the total number of attribute values must not exceed %d", resourcev1.ResourceSliceMaxAttributeValuesPerDevice)))
	}
	for name, a := range d.Attributes {
		errs = append(errs, qualifiedName(p.Child("attributes"), string(name))...)
		errs = append(errs, attribute(p.Child("attributes").Key(shortened(string(name))), a)...)
	}
	if old == nil || !equality.Semantic.DeepEqual(old.Capacity, d.Capacity) {
		shared := d.AllowMultipleAllocations != nil && *d.AllowMultipleAllocations
		for name, c := range d.Capacity {
			errs = append(errs, qualifiedName(p.Child("capacity"), string(name))...)
			errs = append(errs, capacity(p.Child("capacity").Key(shortened(string(name))), c, shared)...)
		}
	}
	if old == nil || !equality.Semantic.DeepEqual(old.Taints, d.Taints) {
		taints := p.Child("taints")
		if len(d.Taints) > resourcev1.DeviceTaintsMaxLength {
			errs = append(errs, field.TooMany(taints, len(d.Taints), resourcev1.DeviceTaintsMaxLength))
		} else {
			errs = append(errs, validation.Each(taints, d.Taints, func(p *field.Path, t *resourcev1.DeviceTaint) field.ErrorList { return taint(p, t, nil) })...)
		}
	}
	errs = append(errs, consumed(p.Child("consumesCounters"), d.ConsumesCounters)...)
	errs = append(errs, deviceNodes(p, d, perDevice)...)
	return append(errs, bindingConditions(p, d.BindingConditions, d.BindingFailureConditions)...)
}

// shortened shortens a long attribute or capacity name in the middle for its field path.
func shortened(name string) string {
	const max = resourcev1.DeviceMaxDomainLength + 1 + resourcev1.DeviceMaxIDLength
	if len(name) <= max {
		return name
	}
	keep := max - len("...")
	return name[:(keep+1)/2] + "..." + name[len(name)-keep/2:]
}

// semver is a version as semver.org 2.0.0 writes it: 1.2.3, -prerelease, +build.
var semver = regexp.MustCompile(`^(0|[1-9]\d*)\.(0|[1-9]\d*)\.(0|[1-9]\d*)` +
	`(-(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*)(\.(0|[1-9]\d*|\d*[a-zA-Z-][0-9a-zA-Z-]*))*)?` +
	`(\+[0-9a-zA-Z-]+(\.[0-9a-zA-Z-]+)*)?$`)

// attribute: exactly one value (a generated rule too): a bool, an int, a string of at most 64
// bytes, or a semver version.
func attribute(p *field.Path, a resourcev1.DeviceAttribute) field.ErrorList {
	var errs field.ErrorList
	switch set := countSet(a.BoolValue != nil, a.IntValue != nil, a.StringValue != nil, a.VersionValue != nil); {
	case set == 0:
		errs = declared("union", field.ErrorList{field.Invalid(p, "", "exactly one value must be specified")})
	case set > 1:
		errs = declared("union", field.ErrorList{field.Invalid(p, a, "exactly one value must be specified")})
	}
	if v := a.StringValue; v != nil && len(*v) > resourcev1.DeviceAttributeMaxValueLength {
		errs = append(errs, field.TooLong(p.Child("string"), "", resourcev1.DeviceAttributeMaxValueLength))
	}
	if v := a.VersionValue; v != nil {
		errs = append(errs, validation.When(!semver.MatchString(*v), field.Invalid(p.Child("version"), *v, "must be a string compatible with semver.org spec 2.0.0"))...)
		errs = append(errs, validation.When(len(*v) > resourcev1.DeviceAttributeMaxValueLength, field.TooLong(p.Child("version"), "", resourcev1.DeviceAttributeMaxValueLength))...)
	}
	return errs
}

func countSet(flags ...bool) int {
	n := 0
	for _, f := range flags {
		if f {
			n++
		}
	}
	return n
}

// capacity: only a device that can be shared between claims has a request policy, which says
// what a claim may take of the capacity: one of some values, or any value of a range.
func capacity(p *field.Path, c resourcev1.DeviceCapacity, shared bool) field.ErrorList {
	policy := c.RequestPolicy
	switch {
	case policy == nil:
		return nil
	case !shared:
		return field.ErrorList{field.Forbidden(p.Child("requestPolicy"), "allowMultipleAllocations must be true")}
	}
	p = p.Child("requestPolicy")
	switch {
	case len(policy.ValidValues) > 0 && policy.ValidRange != nil:
		return field.ErrorList{field.Forbidden(p, `exactly one policy can be specified, cannot specify "validValues" and "validRange" at the same time`)}
	case len(policy.ValidValues) > 0:
		if policy.Default == nil {
			return field.ErrorList{field.Required(p.Child("default"), "required when validValues is defined")}
		}
		return validValues(p.Child("validValues"), c.Value, *policy.Default, policy.ValidValues)
	case policy.ValidRange != nil:
		if policy.Default == nil {
			return field.ErrorList{field.Required(p.Child("default"), "required when validRange is defined")}
		}
		return validRange(p.Child("validRange"), c.Value, *policy.Default, *policy.ValidRange)
	}
	return nil
}

// maxValidValues is how many values a request policy may list (kube-apiserver's limit; k8s.io/api
// does not export it).
const maxValidValues = 10

// validValues: sorted, unique, none above the capacity, the default among them.
func validValues(p *field.Path, max, def apiresource.Quantity, values []apiresource.Quantity) field.ErrorList {
	var errs field.ErrorList
	for i := 1; i < len(values); i++ {
		if values[i-1].Cmp(values[i]) > 0 {
			errs = append(errs, field.Invalid(p.Index(i), values[i].String(), "values must be sorted in ascending order"))
		}
	}
	if len(values) > maxValidValues {
		return append(errs, field.TooMany(p, len(values), maxValidValues))
	}
	seen, hasDefault := map[string]bool{}, false
	for i, v := range values {
		if v.Cmp(max) > 0 {
			errs = append(errs, field.Invalid(p.Index(i), v.String(), "option is larger than capacity value: "+max.String()))
		}
		hasDefault = hasDefault || v.Cmp(def) == 0
		// Fractional values are told apart (DRAFractionalCapacityRange is on in v1.37).
		key := v.AsDec().String()
		if seen[key] {
			errs = append(errs, field.Duplicate(p.Index(i), key))
		}
		seen[key] = true
	}
	return append(errs, validation.When(!hasDefault, field.Invalid(p, def.String(), "default value is not valid according to the requestPolicy"))...)
}

// validRange: a minimum within the capacity, the default and maximum not beyond it, and, with a
// step, the default and maximum a whole number of steps above the minimum.
func validRange(p *field.Path, max, def apiresource.Quantity, r resourcev1.CapacityRequestPolicyRange) field.ErrorList {
	if r.Min == nil {
		return field.ErrorList{field.Required(p.Child("min"), "required when validRange is defined")}
	}
	errs := validation.Join(
		validation.When(r.Min.Cmp(max) > 0, field.Invalid(p.Child("min"), r.Min.String(), "min is larger than capacity value: "+max.String())),
		validation.When(def.Cmp(*r.Min) < 0, field.Invalid(p.Child("default"), def.String(), "default is less than min: "+r.Min.String())),
	)
	if r.Max != nil {
		errs = append(errs, validation.Join(
			validation.When(r.Min.Cmp(*r.Max) > 0, field.Invalid(p.Child("max"), r.Min.String(), "min is larger than max: "+r.Max.String())),
			validation.When(r.Max.Cmp(max) > 0, field.Invalid(p.Child("max"), r.Max.String(), "max is larger than capacity value: "+max.String())),
			validation.When(def.Cmp(*r.Max) > 0, field.Invalid(p.Child("default"), def.String(), "default is more than max: "+r.Max.String())),
		)...)
	}
	if r.Step == nil {
		return errs
	}
	if r.Step.Sign() <= 0 {
		return append(errs, field.Invalid(p.Child("step"), r.Step.String(), "must be greater than zero"))
	}
	oneStep := r.Min.DeepCopy()
	oneStep.Add(*r.Step)
	errs = append(errs, validation.When(oneStep.Cmp(max) > 0, field.Invalid(p.Child("step"), r.Step.String(),
		fmt.Sprintf("one step %s is larger than capacity value: %s", oneStep.String(), max.String())))...)
	return append(errs, steps(p, def, r)...)
}

// steps: the default and the maximum are a whole number of steps above the minimum. A range or
// default with fractions is counted in thousandths (DRAFractionalCapacityRange is on in v1.37),
// any other in units; a bound that cannot be counted so is reported instead.
func steps(p *field.Path, def apiresource.Quantity, r resourcev1.CapacityRequestPolicyRange) field.ErrorList {
	bounds := []struct {
		name string
		q    *apiresource.Quantity
	}{{"default", &def}, {"min", r.Min}, {"max", r.Max}, {"step", r.Step}}
	inThousandths := false
	for _, b := range bounds {
		inThousandths = inThousandths || (b.q != nil && fractional(*b.q))
	}
	count := func(q *apiresource.Quantity) int64 { return q.Value() }
	var errs field.ErrorList
	for _, b := range bounds {
		switch {
		case b.q == nil:
		case inThousandths && b.q.Cmp(*apiresource.NewMilliQuantity(b.q.MilliValue(), b.q.Format)) != 0:
			errs = append(errs, field.Invalid(p.Child(b.name), b.q.String(), "value cannot be represented as a milli value"))
		case !inThousandths && b.q.Sign() < 0:
			errs = append(errs, field.Invalid(p.Child(b.name), b.q.String(), apivalidation.IsNegativeErrorMsg))
		case !inThousandths && b.q.CmpInt64(math.MaxInt64) > 0:
			errs = append(errs, field.Invalid(p.Child(b.name), b.q.String(), fmt.Sprintf("must not be larger than %d", int64(math.MaxInt64))))
		}
	}
	if len(errs) > 0 {
		return errs
	}
	if inThousandths {
		count = func(q *apiresource.Quantity) int64 { return q.MilliValue() }
	}
	for _, v := range []*apiresource.Quantity{&def, r.Max} {
		if v != nil && (count(v)-count(r.Min))%count(r.Step) != 0 {
			errs = append(errs, field.Invalid(p.Child("step"), v.String(), fmt.Sprintf("value is not a multiple of a given step (%s) from (%s)", r.Step.String(), r.Min.String())))
		}
	}
	return errs
}

// fractional: q has a part below one.
func fractional(q apiresource.Quantity) bool {
	return q.AsDec().Cmp(new(inf.Dec).Round(q.AsDec(), 0, inf.RoundDown)) != 0
}

// deviceNodes: a device says where it is (one of nodeName, nodeSelector, allNodes) exactly when
// the slice says each device does.
func deviceNodes(p *field.Path, d *resourcev1.Device, perDevice bool) field.ErrorList {
	if !perDevice {
		return validation.When(d.NodeName != nil || d.NodeSelector != nil || d.AllNodes != nil,
			field.Invalid(p, nil, "`nodeName`, `nodeSelector` and `allNodes` can only be set if `perDeviceNodeSelection` is set to true in the ResourceSlice spec"))
	}
	set, errs := where{d.NodeName, d.NodeSelector, d.AllNodes}.check(p, "must not be empty")
	const which = "exactly one of `nodeName`, `nodeSelector`, or `allNodes` is required when `perDeviceNodeSelection` is set to true in the ResourceSlice spec"
	return append(errs, exactlyOne(p, set, which, which)...)
}

// bindingConditions: the conditions a scheduler waits for before it binds a pod to a device,
// and those that make it give up: label-key names, no repeats, not in both lists, and the one
// list only with the other. Their sizes are generated rules too.
func bindingConditions(p *field.Path, wait, fail []string) field.ErrorList {
	waitPath, failPath := p.Child("bindingConditions"), p.Child("bindingFailureConditions")
	names := func(p *field.Path, conditions []string, max int) field.ErrorList {
		return list(p, conditions, max, func(p *field.Path, c *string) field.ErrorList { return labelName(p, *c) })
	}
	errs := validation.Join(
		names(waitPath, wait, resourcev1.BindingConditionsMaxSize),
		names(failPath, fail, resourcev1.BindingFailureConditionsMaxSize),
		validation.Duplicates(waitPath, wait),
		validation.Duplicates(failPath, fail),
	)
	waiting := map[string]bool{}
	for _, c := range wait {
		waiting[c] = true
	}
	for i, c := range fail {
		errs = append(errs, validation.When(waiting[c], field.Invalid(failPath.Index(i), c, "bindingFailureConditions must not overlap with bindingConditions"))...)
	}
	return validation.Join(errs,
		validation.When(len(wait) == 0 && len(fail) > 0, field.Invalid(waitPath, wait, "bindingConditions are required to use bindingFailureConditions")),
		validation.When(len(fail) == 0 && len(wait) > 0, field.Invalid(failPath, fail, "bindingFailureConditions are required to use bindingConditions")),
	)
}

// consumed: what a device consumes of at most two counter sets, each named once.
func consumed(p *field.Path, consumptions []resourcev1.DeviceCounterConsumption) field.ErrorList {
	return set(p, consumptions, resourcev1.ResourceSliceMaxDeviceCounterConsumptionsPerDevice, func(c resourcev1.DeviceCounterConsumption) string { return c.CounterSet },
		func(p *field.Path, c *resourcev1.DeviceCounterConsumption) field.ErrorList {
			return counters(p, "counterSet", c.CounterSet, c.Counters, resourcev1.ResourceSliceMaxCountersPerDeviceCounterConsumption)
		})
}

// nodeSelectorOf is what a claim's allocation says about where its devices are: a node selector.
func nodeSelectorOf(p *field.Path, s *corev1.NodeSelector) field.ErrorList {
	if s == nil {
		return nil
	}
	return pods.NodeSelector(p, *s)
}
