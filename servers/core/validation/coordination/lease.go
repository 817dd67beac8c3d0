// Package coordination validates the Core server's coordination.k8s.io Leases: the records
// that node heartbeats and leader election keep renewing.
//
// It sits in the Core server of the chain: the lease Definition (servers/core/registry/
// coordination) calls these functions as its Validate hooks, after the request is decoded and
// defaulted and before the Lease is stored; a non-empty error list becomes kube-apiserver's
// 422 Invalid. Field paths, error types and messages are kube-apiserver v1.37.2's, as
// observed. Nothing is left out; LeaseCandidates (coordination.k8s.io/v1beta1) are not served.
package coordination

import (
	"strings"

	coordinationv1 "k8s.io/api/coordination/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

var (
	metadata = field.NewPath("metadata")
	spec     = field.NewPath("spec")
)

// ValidateLease is the rule list of a Lease being created.
func ValidateLease(l *coordinationv1.Lease) field.ErrorList {
	return validation.Join(
		apivalidation.ValidateObjectMeta(&l.ObjectMeta, true, apivalidation.NameIsDNSSubdomain, metadata),
		leaseSpec(&l.Spec),
	)
}

// ValidateLeaseUpdate: any valid Lease; renewing one is an update.
func ValidateLeaseUpdate(l, old *coordinationv1.Lease) field.ErrorList {
	return validation.Join(
		apivalidation.ValidateObjectMetaUpdate(&l.ObjectMeta, &old.ObjectMeta, metadata),
		leaseSpec(&l.Spec),
	)
}

// leaseSpec: a positive duration, a transition count, and a preferred holder only with a
// strategy (which picks among candidates) that Kubernetes knows or that has a domain.
func leaseSpec(s *coordinationv1.LeaseSpec) field.ErrorList {
	var duration, transitions, strategy field.ErrorList
	if d := s.LeaseDurationSeconds; d != nil && *d <= 0 {
		duration = field.ErrorList{field.Invalid(spec.Child("leaseDurationSeconds"), *d, "must be greater than 0")}
	}
	if t := s.LeaseTransitions; t != nil {
		transitions = validation.NonNegative(spec.Child("leaseTransitions"), int64(*t))
	}
	if st := s.Strategy; st != nil {
		path := spec.Child("strategy", "strategy") // sic: kube-apiserver's path
		if strings.Contains(string(*st), "/") {
			strategy = validation.QualifiedName(path, string(*st))
		} else if *st != coordinationv1.OldestEmulationVersion {
			strategy = field.ErrorList{field.NotSupported(path, *st, []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion})}
		}
	}
	return validation.Join(duration, transitions, strategy,
		validation.When(s.PreferredHolder != nil && *s.PreferredHolder != "" && (s.Strategy == nil || *s.Strategy == ""),
			field.Forbidden(spec.Child("preferredHolder"), "may only be specified if `strategy` is defined")),
	)
}
