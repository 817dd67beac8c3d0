// Package node validates the node.k8s.io kind of the Core server: RuntimeClass, which names a
// container runtime configuration (a CRI handler) that pods can ask for, with the overhead it
// adds to a pod and the nodes that have it.
//
// It sits in the Core server of the chain: the RuntimeClass Definition
// (servers/core/registry/node) calls these functions as its Validate hooks, after the request
// is decoded and defaulted and before the object is stored; a non-empty error list becomes
// kube-apiserver's 422 Invalid. The rules, paths and messages are kube-apiserver v1.37.2's, as
// observed, quirks included: the overhead is checked as a container's limits and reported
// under overhead.limits. The generated declarative rules report that the handler is required,
// a DNS label, and immutable: ours, marked as covered by them, are dropped in favour of theirs.
package node

import (
	"slices"

	corev1 "k8s.io/api/core/v1"
	nodev1 "k8s.io/api/node/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
	"github.com/apichain/apichain/servers/core/validation/pods"
)

var metadata = field.NewPath("metadata")

// ValidateRuntimeClass is the rule list of a new RuntimeClass.
func ValidateRuntimeClass(rc *nodev1.RuntimeClass) field.ErrorList {
	return validation.Join(
		validation.Meta(&rc.ObjectMeta, false, validation.SubdomainName, metadata),
		handler(field.NewPath("handler"), rc.Handler),
		validation.IfSet(field.NewPath("overhead"), rc.Overhead, func(p *field.Path, o nodev1.Overhead) field.ErrorList {
			return pods.ContainerLimits(p, o.PodFixed)
		}),
		validation.IfSet(field.NewPath("scheduling"), rc.Scheduling, scheduling),
	)
}

// ValidateRuntimeClassUpdate is the rule list of an update: valid as if new, and the handler
// stays.
func ValidateRuntimeClassUpdate(rc, old *nodev1.RuntimeClass) field.ErrorList {
	return validation.Join(
		ValidateRuntimeClass(rc),
		validation.MetaUpdate(&rc.ObjectMeta, &old.ObjectMeta, metadata),
		validation.ImmutableDeclared(field.NewPath("handler"), rc.Handler, old.Handler),
	)
}

// handler: the name the CRI runtime knows the configuration by, a DNS label.
func handler(p *field.Path, h string) field.ErrorList {
	if h == "" {
		return field.ErrorList{field.Required(p, "").MarkCoveredByDeclarative()}
	}
	return validation.Covered("format=k8s-short-name", validation.DNSLabel(p, h))
}

// scheduling: the labels of the nodes that have the handler, and the taints its pods tolerate,
// each toleration once.
func scheduling(p *field.Path, s nodev1.Scheduling) field.ErrorList {
	errs := validation.Join(
		validation.Labels(p.Child("nodeSelector"), s.NodeSelector),
		pods.Tolerations(p.Child("tolerations"), s.Tolerations),
	)
	var seen []corev1.Toleration
	for i, t := range s.Tolerations {
		key := corev1.Toleration{Key: t.Key, Operator: t.Operator, Value: t.Value, Effect: t.Effect}
		if slices.Contains(seen, key) {
			errs = append(errs, field.Duplicate(p.Child("tolerations").Index(i), validation.Internal(t)))
			continue
		}
		seen = append(seen, key)
	}
	return errs
}
