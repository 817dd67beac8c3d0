package storage

import (
	"fmt"
	"strings"

	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// The CSI kinds: CSIDriver (what a driver needs from Kubernetes) and CSINode (the drivers a
// node's kubelet registered).

// csiNodeIDMaxLength is how long a node's ID for a driver may be (the "long" form, which every
// release since 1.22 accepts).
const csiNodeIDMaxLength = 256

var (
	metadata = field.NewPath("metadata")
	spec     = field.NewPath("spec")
)

// ValidateCSIDriver is the rule list of a new CSIDriver.
func ValidateCSIDriver(d *storagev1.CSIDriver) field.ErrorList {
	return validation.Join(
		validation.Meta(&d.ObjectMeta, false, validation.SubdomainName, metadata),
		csiDriverSpec(&d.Spec),
	)
}

// ValidateCSIDriverUpdate is the rule list of an update: the driver as if new, and whether it
// is attached and which volume modes it serves stay. kube-apiserver reports an attachRequired
// change on spec.attachedRequired, a path that names no field; so does the chain.
func ValidateCSIDriverUpdate(d, old *storagev1.CSIDriver) field.ErrorList {
	return validation.Join(
		ValidateCSIDriver(d),
		validation.MetaUpdate(&d.ObjectMeta, &old.ObjectMeta, metadata),
		validation.Immutable(spec.Child("attachedRequired"), d.Spec.AttachRequired, old.Spec.AttachRequired),
		// Declared +k8s:alpha immutable: shown only from here.
		validation.ImmutableDeclared(spec.Child("volumeLifecycleModes"), d.Spec.VolumeLifecycleModes, old.Spec.VolumeLifecycleModes),
	)
}

// csiDriverSpec: the booleans the defaults fill in are required, the enums known, token
// audiences distinct. The required attachRequired is reported on spec.attachedRequired too.
func csiDriverSpec(s *storagev1.CSIDriverSpec) field.ErrorList {
	required := func(name string, b *bool) field.ErrorList {
		return validation.When(b == nil, field.Required(spec.Child(name), ""))
	}
	return validation.Join(
		required("attachedRequired", s.AttachRequired),
		required("podInfoOnMount", s.PodInfoOnMount),
		required("storageCapacity", s.StorageCapacity),
		validation.IfSet(spec.Child("fsGroupPolicy"), s.FSGroupPolicy, func(p *field.Path, v storagev1.FSGroupPolicy) field.ErrorList {
			return validation.Supported(p, v, storagev1.FileFSGroupPolicy, storagev1.NoneFSGroupPolicy, storagev1.ReadWriteOnceWithFSTypeFSGroupPolicy)
		}),
		tokenRequests(spec.Child("tokenRequests"), s.TokenRequests),
		// Each unknown mode is reported on the list itself, not on its index.
		validation.Each(spec.Child("volumeLifecycleModes"), s.VolumeLifecycleModes, func(_ *field.Path, m *storagev1.VolumeLifecycleMode) field.ErrorList {
			return validation.Supported(spec.Child("volumeLifecycleModes"), *m, storagev1.VolumeLifecyclePersistent, storagev1.VolumeLifecycleEphemeral)
		}),
		required("seLinuxMount", s.SELinuxMount),
		validation.IfSet(spec.Child("nodeAllocatableUpdatePeriodSeconds"), s.NodeAllocatableUpdatePeriodSeconds, func(p *field.Path, v int64) field.ErrorList {
			return validation.When(v < 10, field.Invalid(p, v, "must be greater than or equal to 10 seconds"))
		}),
	)
}

// tokenRequests: the service account tokens the kubelet passes to the driver, one per audience,
// each valid between 10 minutes and 2^32 seconds.
func tokenRequests(path *field.Path, requests []storagev1.TokenRequest) field.ErrorList {
	var errs field.ErrorList
	seen := map[string]bool{}
	for i, r := range requests {
		p := path.Index(i)
		if seen[r.Audience] {
			errs = append(errs, field.Duplicate(p.Child("audience"), r.Audience))
			continue
		}
		seen[r.Audience] = true
		errs = append(errs, validation.IfSet(p.Child("expirationSeconds"), r.ExpirationSeconds, func(p *field.Path, s int64) field.ErrorList {
			return validation.Join(
				validation.When(s < 600, field.Invalid(p, s, "may not specify a duration less than 10 minutes")),
				validation.When(s > 1<<32, field.Invalid(p, s, "may not specify a duration larger than 2^32 seconds")),
			)
		})...)
	}
	return errs
}

// ValidateCSINode is the rule list of a new CSINode.
func ValidateCSINode(n *storagev1.CSINode) field.ErrorList {
	var errs field.ErrorList
	names := map[string]bool{}
	for i := range n.Spec.Drivers {
		errs = append(errs, csiNodeDriver(spec.Child("drivers").Index(i), &n.Spec.Drivers[i], names)...)
	}
	return append(validation.Meta(&n.ObjectMeta, false, validation.SubdomainName, metadata), errs...)
}

// ValidateCSINodeUpdate is the rule list of an update: the node as if new, and a driver that
// stays registered keeps its node ID and topology keys (its allocatable count may change).
// The error names the whole list, and shows the driver as kube-apiserver's internal type
// prints it.
func ValidateCSINodeUpdate(n, old *storagev1.CSINode) field.ErrorList {
	errs := validation.Join(ValidateCSINode(n), validation.MetaUpdate(&n.ObjectMeta, &old.ObjectMeta, metadata))
	for _, was := range old.Spec.Drivers {
		for _, is := range n.Spec.Drivers {
			if was.Name != is.Name {
				continue
			}
			was.Allocatable, is.Allocatable = nil, nil // copies
			if !equality.Semantic.DeepEqual(is, was) {
				errs = append(errs, field.Invalid(spec.Child("drivers"), validation.Internal(is), "field is immutable"))
			}
		}
	}
	return errs
}

// ValidateCSINodeStatusUpdate checks a status update: the metadata it may change. (Its storage
// health belongs to the CSIVolumeHealth feature, off in v1.37; the registry drops it.)
func ValidateCSINodeStatusUpdate(n, old *storagev1.CSINode) field.ErrorList {
	return validation.MetaUpdate(&n.ObjectMeta, &old.ObjectMeta, metadata)
}

// csiNodeDriver: a known driver name once per node, the node's ID for it, a count of volumes
// that is not negative, and topology keys that are label keys. Topology key errors are
// reported on the driver, not on the key.
func csiNodeDriver(p *field.Path, d *storagev1.CSINodeDriver, names map[string]bool) field.ErrorList {
	errs := validation.Join(
		csiDriverName(p.Child("name"), d.Name),
		validation.Required(p.Child("nodeID"), d.NodeID),
		validation.When(len(d.NodeID) > csiNodeIDMaxLength, field.Invalid(p.Child("nodeID"), d.NodeID, fmt.Sprintf("must be %d characters or less", csiNodeIDMaxLength))),
	)
	if d.Allocatable != nil && d.Allocatable.Count != nil {
		errs = append(errs, validation.NonNegative(p.Child("allocatable", "count"), int64(*d.Allocatable.Count))...)
	}
	errs = append(errs, validation.When(names[d.Name], field.Duplicate(p.Child("name"), d.Name))...)
	names[d.Name] = true
	keys := map[string]bool{}
	for _, key := range d.TopologyKeys {
		errs = append(errs, validation.Join(
			validation.When(key == "", field.Required(p, "")),
			validation.When(keys[key], field.Duplicate(p, key)),
			validation.QualifiedName(p, key),
		)...)
		keys[key] = true
	}
	return errs
}

// csiDriverName: a CSI driver's name is a DNS subdomain of at most 63 characters, in any case.
func csiDriverName(p *field.Path, name string) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(p, "")}
	}
	return validation.Join(
		validation.When(len(name) > 63, field.TooLong(p, name, 63)),
		messagesAt(p, name, utilvalidation.IsDNS1123Subdomain(strings.ToLower(name))),
	)
}

// messagesAt turns the messages of a k8s.io/apimachinery check into Invalid errors.
func messagesAt(p *field.Path, value any, msgs []string) field.ErrorList {
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(p, value, m))
	}
	return errs
}
