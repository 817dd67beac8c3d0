package core

import (
	"fmt"
	"net/netip"
	"regexp"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

var (
	nodeSpec   = field.NewPath("spec")
	nodeStatus = field.NewPath("status")
	// kube-apiserver reports a node's taints, and its swap capacity, under metadata.
	nodeTaints = metadata.Child("taints")
	nodeSwap   = metadata.Child("nodeSwapStatus", "capacity")
)

// ValidateNode is the rule list of a Node being registered. The status is the kubelet's; what
// it holds must make sense, but nothing in it is required.
func ValidateNode(node *corev1.Node) field.ErrorList {
	var swap field.ErrorList
	if s := node.Status.NodeInfo.Swap; s != nil && s.Capacity != nil {
		swap = validation.Positive(nodeSwap, *s.Capacity)
	}
	return validation.Join(
		validation.Meta(&node.ObjectMeta, false, validation.SubdomainName, metadata),
		taints(nodeTaints, node.Spec.Taints),
		resourceQuantities(nodeStatus.Child("capacity"), node.Status.Capacity),
		resourceQuantities(nodeStatus.Child("allocatable"), node.Status.Allocatable),
		swap,
		declaredFeatures(nodeStatus.Child("declaredFeatures"), node.Status.DeclaredFeatures),
		podCIDRs(nodeSpec.Child("podCIDRs"), node.Spec.PodCIDRs),
	)
}

// ValidateNodeUpdate: a valid Node that keeps what may not change.
func ValidateNodeUpdate(node, old *corev1.Node) field.ErrorList {
	return validation.Join(ValidateNode(node), ValidateNodeStatusUpdate(node, old))
}

// ValidateNodeStatusUpdate is the rule list of a node's /status, and the part of every update
// that compares with the stored node: the pod CIDRs, once assigned, and the provider ID, once
// set, stay.
func ValidateNodeStatusUpdate(node, old *corev1.Node) field.ErrorList {
	return validation.Join(
		validation.MetaUpdate(&node.ObjectMeta, &old.ObjectMeta, metadata),
		resourceQuantities(nodeStatus.Child("capacity"), node.Status.Capacity),
		resourceQuantities(nodeStatus.Child("allocatable"), node.Status.Allocatable),
		declaredFeatures(nodeStatus.Child("declaredFeatures"), node.Status.DeclaredFeatures),
		uniqueAddresses(nodeStatus.Child("addresses"), node.Status.Addresses),
		podCIDRsKept(nodeSpec.Child("podCIDRs"), node.Spec.PodCIDRs, old.Spec.PodCIDRs),
		providerIDKept(nodeSpec.Child("providerID"), node.Spec.ProviderID, old.Spec.ProviderID),
		taints(nodeTaints, node.Spec.Taints),
		validation.When(node.Spec.DoNotUseExternalID != old.Spec.DoNotUseExternalID,
			field.Forbidden(nodeSpec.Child("externalID"), "may not be updated")),
	)
}

// taints: each a label key and value with a known effect, at most one per key and effect.
func taints(path *field.Path, list []corev1.Taint) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, t := range list {
		p := path.Index(i)
		errs = append(errs, metavalidation.ValidateLabelName(t.Key, p.Child("key"))...)
		if msgs := utilvalidation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(p.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		errs = append(errs, validation.OneOf(p.Child("effect"), t.Effect,
			corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute)...)
		if key := t.Key + "\x00" + string(t.Effect); seen[key] {
			dup := field.Duplicate(p, validation.Internal(t))
			dup.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, dup)
		} else {
			seen[key] = true
		}
	}
	return errs
}

// A declared feature is named like MyFeature or MyFeature/mySubFeature.
var featureName = regexp.MustCompile(`^[A-Z][a-zA-Z0-9]*(/[a-zA-Z][a-zA-Z0-9]*)*$`)

// declaredFeatures: the features the kubelet says the node has, well named, sorted, unique.
func declaredFeatures(path *field.Path, features []string) field.ErrorList {
	var errs field.ErrorList
	for i, f := range features {
		switch {
		case len(f) > utilvalidation.DNS1123SubdomainMaxLength:
			errs = append(errs, field.Invalid(path.Index(i), f, fmt.Sprintf("invalid feature name %q: must be no more than %d characters", f, utilvalidation.DNS1123SubdomainMaxLength)))
		case !featureName.MatchString(f):
			errs = append(errs, field.Invalid(path.Index(i), f, fmt.Sprintf("invalid feature name %q: must start with an UpperCamelCase segment, with subsequent segments separated by '/' (e.g., MyFeature or MyFeature/mySubFeature), and contain only alphanumeric characters and slashes", f)))
		}
		if i == 0 {
			continue
		}
		switch prev := features[i-1]; {
		case f == prev:
			errs = append(errs, field.Duplicate(path.Index(i), f))
		case f < prev:
			errs = append(errs, field.Invalid(path.Index(i), f, "list must be sorted alphabetically"))
		}
	}
	return errs
}

// podCIDRs: the ranges the node's pods get addresses from, at most one per IP family.
func podCIDRs(path *field.Path, cidrs []string) field.ErrorList {
	var errs field.ErrorList
	v4, v6 := 0, 0
	for i, c := range cidrs {
		errs = append(errs, utilvalidation.IsValidCIDRForLegacyField(path.Index(i), c, true, nil)...)
		if p, err := netip.ParsePrefix(c); err == nil && p.Addr().Is4() {
			v4++
		} else if err == nil {
			v6++
		}
	}
	return append(errs, validation.When(len(cidrs) > 1 && (v4 > 1 || v6 > 1 || len(cidrs) > 2),
		field.Invalid(path, cidrs, "may specify no more than one CIDR for each IP family"))...)
}

// podCIDRsKept: the node IPAM controller assigns the pod CIDRs once; they never change.
func podCIDRsKept(path *field.Path, cidrs, old []string) field.ErrorList {
	const msg = `node updates may not change podCIDR except from "" to valid`
	if len(old) == 0 {
		return nil
	}
	if len(cidrs) != len(old) {
		return field.ErrorList{field.Forbidden(path, msg)}
	}
	var errs field.ErrorList
	for i := range old {
		errs = append(errs, validation.When(cidrs[i] != old[i], field.Forbidden(path, msg))...)
	}
	return errs
}

// providerIDKept: the cloud controller sets the provider ID once. The declarative rule is alpha
// in v1.37: only logged, so it is ours to report.
func providerIDKept(path *field.Path, id, old string) field.ErrorList {
	var err *field.Error
	switch {
	case old == "" || id == old:
		return nil
	case id == "":
		err = field.Invalid(path, nil, "field cannot be cleared once set")
	default:
		err = field.Invalid(path, nil, "field cannot be modified once set")
	}
	return validation.Covered("update", field.ErrorList{err}).MarkAlpha()
}

// uniqueAddresses: the kubelet reports each address (type and value) once.
func uniqueAddresses(path *field.Path, addresses []corev1.NodeAddress) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.NodeAddress]bool{}
	for i, a := range addresses {
		if seen[a] {
			errs = append(errs, field.Duplicate(path.Index(i), validation.Internal(a)))
		}
		seen[a] = true
	}
	return errs
}
