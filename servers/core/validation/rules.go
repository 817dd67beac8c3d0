package validation

// The rule helpers every kind's validation is written with. Each checks one thing and returns
// kube-apiserver's field error for it; a kind's function reads as the list of its rules:
//
//	errs = append(errs, validation.Meta(&cm.ObjectMeta, true, validation.SubdomainName, path)...)
//	errs = append(errs, validation.NonNegative(spec.Child("replicas"), int64(*replicas))...)
//
// Arguments go in field's order, path first, then the value. Most helpers are thin layers over
// k8s.io/apimachinery's validation packages, which hold the messages kube-apiserver prints.

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	pathvalidation "k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// NameRule checks an object's name (prefix is true for a generateName) and returns messages.
type NameRule = apivalidation.ValidateNameFunc

// The name rules of the built-in kinds: most take a DNS subdomain, some a DNS label.
var (
	SubdomainName NameRule = apivalidation.NameIsDNSSubdomain
	LabelName     NameRule = apivalidation.NameIsDNSLabel
	DNS1035Name   NameRule = apivalidation.NameIsDNS1035Label
)

// PathSegmentName accepts any name that can stand in a URL path (RBAC objects, reviews).
func PathSegmentName(name string, prefix bool) []string {
	return pathvalidation.ValidatePathSegmentName(name, prefix)
}

// Meta checks the metadata of an object being created: its name with rule, its namespace
// (when namespaced), labels, annotations, owner references and finalizers.
func Meta(meta *metav1.ObjectMeta, namespaced bool, rule NameRule, path *field.Path) field.ErrorList {
	errs := apivalidation.ValidateObjectMeta(meta, namespaced, rule, path)
	return append(errs, kubeFinalizers(path.Child("finalizers"), meta.Finalizers)...)
}

// MetaUpdate checks the metadata of an update against the stored object's: name, namespace,
// uid, creation time and the like cannot change.
func MetaUpdate(meta, old *metav1.ObjectMeta, path *field.Path) field.ErrorList {
	errs := apivalidation.ValidateObjectMetaUpdate(meta, old, path)
	return append(errs, kubeFinalizers(path.Child("finalizers"), meta.Finalizers)...)
}

// kubeFinalizers checks each of an object's finalizers with KubeFinalizer.
func kubeFinalizers(path *field.Path, finalizers []string) field.ErrorList {
	var errs field.ErrorList
	for i, f := range finalizers {
		errs = append(errs, KubeFinalizer(path.Index(i), f)...)
	}
	return errs
}

// KubeFinalizer: a finalizer without a domain must be one Kubernetes itself knows.
func KubeFinalizer(path *field.Path, f string) field.ErrorList {
	if !strings.Contains(f, "/") && !KnownFinalizer(f) {
		return field.ErrorList{field.Invalid(path, f, "name is neither a standard finalizer name nor is it fully qualified")}
	}
	return nil
}

// KnownFinalizer says whether f is one of the finalizers Kubernetes defines without a domain.
func KnownFinalizer(f string) bool {
	return f == "kubernetes" || f == metav1.FinalizerOrphanDependents || f == metav1.FinalizerDeleteDependents
}

// messages turns a list of messages from k8s.io/apimachinery/pkg/util/validation into errors.
func messages(path *field.Path, value interface{}, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(path, value, m))
	}
	return errs
}

// DNSLabel: value is an RFC 1123 label ("my-name": lower case, digits, '-', at most 63).
func DNSLabel(path *field.Path, value string) field.ErrorList {
	return messages(path, value, utilvalidation.IsDNS1123Label(value))
}

// DNS1035Label: an RFC 1035 label, which also must start with a letter (service names).
func DNS1035Label(path *field.Path, value string) field.ErrorList {
	return messages(path, value, utilvalidation.IsDNS1035Label(value))
}

// DNSSubdomain: value is an RFC 1123 subdomain ("a.b-c", at most 253).
func DNSSubdomain(path *field.Path, value string) field.ErrorList {
	return messages(path, value, utilvalidation.IsDNS1123Subdomain(value))
}

// LabelValue: value may be a label's value (at most 63 characters, alphanumerics and '-_.').
func LabelValue(path *field.Path, value string) field.ErrorList {
	return messages(path, value, utilvalidation.IsValidLabelValue(value))
}

// QualifiedName: value is a label key: an optional DNS subdomain prefix and '/', then a name.
func QualifiedName(path *field.Path, value string) field.ErrorList {
	return messages(path, value, utilvalidation.IsQualifiedName(value))
}

// Labels and Annotations check a map of labels or annotations.
func Labels(path *field.Path, labels map[string]string) field.ErrorList {
	return metavalidation.ValidateLabels(labels, path)
}

func Annotations(path *field.Path, annotations map[string]string) field.ErrorList {
	return apivalidation.ValidateAnnotations(annotations, path)
}

// Selector checks a label selector; invalid label values are rejected (the rule for objects
// created now; an update may keep what an old object already has, see SelectorKeepingOld).
func Selector(path *field.Path, selector *metav1.LabelSelector) field.ErrorList {
	return metavalidation.ValidateLabelSelector(selector, metavalidation.LabelSelectorValidationOptions{}, path)
}

// SelectorKeepingOld checks selector on update: if the stored object's selector already has an
// invalid label value, such values stay allowed, as kube-apiserver lets old objects be updated.
func SelectorKeepingOld(path *field.Path, selector, old *metav1.LabelSelector) field.ErrorList {
	opts := metavalidation.LabelSelectorValidationOptions{
		AllowInvalidLabelValueInSelector: old != nil && metavalidation.LabelSelectorHasInvalidLabelValue(old),
	}
	return metavalidation.ValidateLabelSelector(selector, opts, path)
}

// NonNegative: value >= 0.
func NonNegative(path *field.Path, value int64) field.ErrorList {
	return apivalidation.ValidateNonnegativeField(value, path)
}

// Positive: value > 0.
func Positive(path *field.Path, value int64) field.ErrorList {
	if value <= 0 {
		return field.ErrorList{field.Invalid(path, value, "must be greater than zero")}
	}
	return nil
}

// InRange: lo <= value <= hi.
func InRange(path *field.Path, value, lo, hi int64) field.ErrorList {
	if value < lo || value > hi {
		return field.ErrorList{field.Invalid(path, value, utilvalidation.InclusiveRangeError(int(lo), int(hi)))}
	}
	return nil
}

// Port: a TCP or UDP port number, 1 to 65535.
func Port(path *field.Path, port int32) field.ErrorList {
	return messages(path, port, utilvalidation.IsValidPortNum(int(port)))
}

// PortName: an IANA service name (at most 15 characters, letters, digits and '-').
func PortName(path *field.Path, name string) field.ErrorList {
	return messages(path, name, utilvalidation.IsValidPortName(name))
}

// NonNegativeQuantity: q >= 0.
func NonNegativeQuantity(path *field.Path, q resource.Quantity) field.ErrorList {
	if q.Sign() < 0 {
		return field.ErrorList{field.Invalid(path, q.String(), apivalidation.IsNegativeErrorMsg)}
	}
	return nil
}

// Required: a string field that must be set.
func Required(path *field.Path, value string) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	return nil
}

// OneOf: value is one of allowed (an enum). An empty value is Required.
func OneOf[T ~string](path *field.Path, value T, allowed ...T) field.ErrorList {
	if value == "" {
		return field.ErrorList{field.Required(path, "")}
	}
	if slices.Contains(allowed, value) {
		return nil
	}
	return field.ErrorList{field.NotSupported(path, value, allowed)}
}

// Immutable: an update keeps the stored value.
func Immutable(path *field.Path, value, old interface{}) field.ErrorList {
	return apivalidation.ValidateImmutableField(value, old, path)
}

// Duplicates reports each value of keys seen before at path.Index(i).
func Duplicates[T comparable](path *field.Path, keys []T) field.ErrorList {
	var errs field.ErrorList
	seen := map[T]bool{}
	for i, k := range keys {
		if seen[k] {
			errs = append(errs, field.Duplicate(path.Index(i), k))
		}
		seen[k] = true
	}
	return errs
}

// Each runs check on every element of list at path.Index(i).
func Each[T any](path *field.Path, list []T, check func(*field.Path, *T) field.ErrorList) field.ErrorList {
	var errs field.ErrorList
	for i := range list {
		errs = append(errs, check(path.Index(i), &list[i])...)
	}
	return errs
}

// EndpointIP: an address that traffic can be sent to, as Endpoints, EndpointSlices and a
// Service's externalIPs need: an IP, and not one that means "any", "this host" or "this link".
func EndpointIP(path *field.Path, value string) field.ErrorList {
	ip := netutils.ParseIPSloppy(value) // leading zeros are reported by the field's own IP check
	var msg string
	switch {
	case ip == nil:
		msg = "must be a valid IP address"
	case ip.IsUnspecified():
		msg = fmt.Sprintf("may not be unspecified (%v)", value)
	case ip.IsLoopback():
		msg = "may not be in the loopback range (127.0.0.0/8, ::1/128)"
	case ip.IsLinkLocalUnicast():
		msg = "may not be in the link-local range (169.254.0.0/16, fe80::/10)"
	case ip.IsLinkLocalMulticast():
		msg = "may not be in the link-local multicast range (224.0.0.0/24, ff02::/10)"
	default:
		return nil
	}
	return field.ErrorList{field.Invalid(path, value, msg)}
}

// Covered marks errs as what a generated declarative rule also reports, with that rule's
// origin ("minimum", "immutable", "maxItems", "format=k8s-long-name"; "" for Required and
// NotSupported). k8s.io/apiserver drops them when the rule is enforced (+k8s:beta), and the
// generated errors come after the kind's own; it compares them and logs any difference.
func Covered(origin string, errs field.ErrorList) field.ErrorList {
	if origin != "" {
		errs = errs.WithOrigin(origin)
	}
	return errs.MarkCoveredByDeclarative()
}

// Join concatenates the results of a kind's rules, in order, so that its function reads as
// the list of them: return validation.Join(rule1, rule2, ...).
func Join(lists ...field.ErrorList) field.ErrorList {
	var errs field.ErrorList
	for _, l := range lists {
		errs = append(errs, l...)
	}
	return errs
}

// When returns err if cond holds: a rule that is one condition.
func When(cond bool, err *field.Error) field.ErrorList {
	if cond {
		return field.ErrorList{err}
	}
	return nil
}

// Forbiddenf is field.Forbidden with a formatted message.
func Forbiddenf(path *field.Path, format string, args ...interface{}) *field.Error {
	return field.Forbidden(path, fmt.Sprintf(format, args...))
}

// Internal wraps a struct-valued bad value so that it prints as kube-apiserver prints it: the
// Go field names of its internal type (see internaljson.go).
func Internal(v interface{}) interface{} { return internal(v) }

// IfSet runs check on an optional (pointer) field that is set.
func IfSet[T any](path *field.Path, value *T, check func(*field.Path, T) field.ErrorList) field.ErrorList {
	if value == nil {
		return nil
	}
	return check(path, *value)
}

// NonNegativeIntOrPercent: a count (>= 0) or a percentage such as "25%" (rollout budgets,
// disruption budgets).
func NonNegativeIntOrPercent(path *field.Path, v intstr.IntOrString) field.ErrorList {
	if v.Type == intstr.Int {
		return NonNegative(path, int64(v.IntVal))
	}
	return messages(path, v, utilvalidation.IsValidPercent(v.StrVal))
}

// AtMost100Percent: a percentage, if v is one, is not over 100%.
func AtMost100Percent(path *field.Path, v intstr.IntOrString) field.ErrorList {
	if p, ok := Percent(v); ok && p > 100 {
		return field.ErrorList{field.Invalid(path, v, "must not be greater than 100%")}
	}
	return nil
}

// Percent returns the number of a well-formed percentage ("25%" is 25).
func Percent(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(utilvalidation.IsValidPercent(v.StrVal)) > 0 {
		return 0, false
	}
	n, err := strconv.Atoi(strings.TrimSuffix(v.StrVal, "%"))
	return n, err == nil
}

// ImmutableDeclared is Immutable for a field whose generated declarative rule (+k8s:immutable)
// reports the same. The error is marked so that k8s.io/apiserver drops it when that rule is
// enforced (beta: the generated error is shown instead) and keeps it when the rule is only
// shadowed (alpha), without logging a mismatch between the two.
func ImmutableDeclared(path *field.Path, value, old interface{}) field.ErrorList {
	return Immutable(path, value, old).WithOrigin("immutable").MarkCoveredByDeclarative()
}

// Supported: value is one of allowed, or NotSupported; unlike OneOf, an empty value is just
// another unsupported one.
func Supported[T ~string](path *field.Path, value T, allowed ...T) field.ErrorList {
	if slices.Contains(allowed, value) {
		return nil
	}
	return field.ErrorList{field.NotSupported(path, value, allowed)}
}
