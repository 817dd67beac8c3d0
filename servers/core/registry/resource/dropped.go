package resource

// The fields of the resource.k8s.io/v1 features that are off in kube-apiserver v1.37 by default
// (alpha): a write that sets them has them dropped, as the feature's gate being off means the
// server does not know them. An object that already uses one keeps it, so that turning a gate
// off never breaks updates of what was written while it was on.

import (
	resourcev1 "k8s.io/api/resource/v1"
)

// dropClaimSpecFields: derived attributes (DRADerivedAttributes) of a claim's or template's
// requests.
func dropClaimSpecFields(spec, old *resourcev1.ResourceClaimSpec) {
	if old != nil && usesDerivedAttributes(old) {
		return
	}
	for i := range spec.Devices.Requests {
		r := &spec.Devices.Requests[i]
		if r.Exactly != nil {
			r.Exactly.DerivedAttributes = nil
		}
		for j := range r.FirstAvailable {
			r.FirstAvailable[j].DerivedAttributes = nil
		}
	}
}

func usesDerivedAttributes(spec *resourcev1.ResourceClaimSpec) bool {
	for _, r := range spec.Devices.Requests {
		if r.Exactly != nil && len(r.Exactly.DerivedAttributes) > 0 {
			return true
		}
		for _, sub := range r.FirstAvailable {
			if len(sub.DerivedAttributes) > 0 {
				return true
			}
		}
	}
	return false
}

// dropSliceFields: a slice's partition type attribute (DRAPartitionableDevicesType) and
// skipped node operations (DRAOptionalNodeOperations); its devices' list-type attributes
// (DRAListTypeAttributes), node-allocatable resources (DRANodeAllocatableResources) and the
// compatibility groups of the counters they consume (DRADeviceCompatibilityGroups). Each
// feature is dropped unless the stored slice uses it.
func dropSliceFields(s, old *resourcev1.ResourceSlice) {
	uses := func(f func(*resourcev1.ResourceSliceSpec) bool) bool { return old != nil && f(&old.Spec) }
	if !uses(func(s *resourcev1.ResourceSliceSpec) bool { return s.PartitionTypeAttribute != nil }) {
		s.Spec.PartitionTypeAttribute = nil
	}
	if !uses(func(s *resourcev1.ResourceSliceSpec) bool { return len(s.SkipNodeOperations) > 0 }) {
		s.Spec.SkipNodeOperations = nil
	}
	keepLists := uses(anyDevice(func(d *resourcev1.Device) bool {
		for _, a := range d.Attributes {
			if a.BoolValues != nil || a.IntValues != nil || a.StringValues != nil || a.VersionValues != nil {
				return true
			}
		}
		return false
	}))
	keepNodeResources := uses(anyDevice(func(d *resourcev1.Device) bool { return len(d.NodeAllocatableResources) > 0 }))
	keepGroups := uses(anyDevice(func(d *resourcev1.Device) bool {
		for _, c := range d.ConsumesCounters {
			if len(c.CompatibilityGroups) > 0 {
				return true
			}
		}
		return false
	}))
	for i := range s.Spec.Devices {
		d := &s.Spec.Devices[i]
		if !keepLists {
			for name, a := range d.Attributes {
				a.BoolValues, a.IntValues, a.StringValues, a.VersionValues = nil, nil, nil, nil
				d.Attributes[name] = a
			}
		}
		if !keepNodeResources {
			d.NodeAllocatableResources = nil
		}
		if !keepGroups {
			for j := range d.ConsumesCounters {
				d.ConsumesCounters[j].CompatibilityGroups = nil
			}
		}
	}
}

// anyDevice: whether any device of a slice is as f says.
func anyDevice(f func(*resourcev1.Device) bool) func(*resourcev1.ResourceSliceSpec) bool {
	return func(s *resourcev1.ResourceSliceSpec) bool {
		for i := range s.Devices {
			if f(&s.Devices[i]) {
				return true
			}
		}
		return false
	}
}

// dropClaimStatusFields: the skipped node operations (DRAOptionalNodeOperations) of the results
// of a new allocation.
func dropClaimStatusFields(status, old *resourcev1.ResourceClaimStatus) {
	if status.Allocation == nil {
		return
	}
	if old.Allocation != nil {
		for _, r := range old.Allocation.Devices.Results {
			if len(r.SkipNodeOperations) > 0 {
				return
			}
		}
	}
	for i := range status.Allocation.Devices.Results {
		status.Allocation.Devices.Results[i].SkipNodeOperations = nil
	}
}
