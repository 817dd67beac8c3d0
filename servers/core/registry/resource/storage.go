// Package resource is the resource.k8s.io API group of the Core server, dynamic resource
// allocation, following kubernetes pkg/registry/resource: DeviceClasses, DeviceTaintRules (with
// /status), ResourceClaims (with /status), ResourceClaimTemplates and ResourceSlices.
//
// The chain serves the API and keeps kube-apiserver's rules; no DRA driver, scheduler plugin or
// claim controller runs in it, so claims are allocated (through /status) by whoever plays the
// scheduler, and slices are published by whoever plays a driver.
//
// Feature gates are at their v1.37 defaults. The fields of the alpha features that are off
// (derived attributes, list-type attributes, device compatibility groups, node-allocatable
// resources, optional node operations, partition type attributes) are dropped on write, unless
// the stored object already uses them (dropped.go).
package resource

import (
	"context"
	"fmt"
	"strings"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/printers"
	coreresource "github.com/apichain/apichain/servers/core/resource"
	validation "github.com/apichain/apichain/servers/core/validation/resource"
)

// deviceClasses follow pkg/registry/resource/deviceclass: a generation that counts changes of
// the spec.
var deviceClasses = &coreresource.Definition{
	Resource: "deviceclasses", Singular: "deviceclass",
	New:                 func() runtime.Object { return &resourcev1.DeviceClass{} },
	NewList:             func() runtime.Object { return &resourcev1.DeviceClassList{} },
	Table:               printers.DeviceClass,
	Generation:          true,
	ReturnDeletedObject: true,
	Validate:            coreresource.Check(validation.ValidateDeviceClass),
	ValidateUpdate:      coreresource.CheckUpdate(validation.ValidateDeviceClassUpdate),
}

// deviceTaintRules follow pkg/registry/resource/devicetaintrule: a status that controllers
// write, a generation, and a taint whose timeAdded moves when its effect changes. Through v1, an
// update must name the resourceVersion it replaces.
var deviceTaintRules = &coreresource.Definition{
	Resource: "devicetaintrules", Singular: "devicetaintrule",
	New:                    func() runtime.Object { return &resourcev1.DeviceTaintRule{} },
	NewList:                func() runtime.Object { return &resourcev1.DeviceTaintRuleList{} },
	Table:                  printers.DeviceTaintRule,
	Status:                 true,
	Generation:             true,
	ConditionalUpdatesOnly: true,
	PrepareForUpdate: func(_ context.Context, obj, old runtime.Object) {
		rule, was := obj.(*resourcev1.DeviceTaintRule), old.(*resourcev1.DeviceTaintRule)
		// timeAdded says when the current effect began (tolerations with a duration count from
		// it): a new effect gets a new time, unless the update sets one of its own.
		if rule.Spec.Taint.Effect != was.Spec.Taint.Effect && rule.Spec.Taint.TimeAdded.Equal(was.Spec.Taint.TimeAdded) {
			rule.Spec.Taint.TimeAdded = &metav1.Time{Time: time.Now().Truncate(time.Second)}
		}
	},
	Validate:             coreresource.Check(validation.ValidateDeviceTaintRule),
	ValidateUpdate:       coreresource.CheckUpdate(validation.ValidateDeviceTaintRuleUpdate),
	ValidateStatusUpdate: coreresource.CheckUpdate(validation.ValidateDeviceTaintRuleStatusUpdate),
}

// resourceClaims follow pkg/registry/resource/resourceclaim: a spec that never changes and a
// status (the allocation, who uses the claim, the devices' state) written through /status,
// whose strategy is the group provider's (status.go). Admin access to devices is checked there
// too (adminaccess.go).
var resourceClaims = &coreresource.Definition{
	Resource: "resourceclaims", Singular: "resourceclaim", Namespaced: true,
	New:                 func() runtime.Object { return &resourcev1.ResourceClaim{} },
	NewList:             func() runtime.Object { return &resourcev1.ResourceClaimList{} },
	Table:               printers.ResourceClaim,
	Status:              true,
	ReturnDeletedObject: true,
	PrepareForCreate: func(_ context.Context, obj runtime.Object) {
		dropClaimSpecFields(&obj.(*resourcev1.ResourceClaim).Spec, nil)
	},
	PrepareForUpdate: func(_ context.Context, obj, old runtime.Object) {
		dropClaimSpecFields(&obj.(*resourcev1.ResourceClaim).Spec, &old.(*resourcev1.ResourceClaim).Spec)
	},
	Validate:       coreresource.Check(validation.ValidateResourceClaim),
	ValidateUpdate: coreresource.CheckUpdate(validation.ValidateResourceClaimUpdate),
}

// resourceClaimTemplates follow pkg/registry/resource/resourceclaimtemplate: the claim a pod
// gets made for it.
var resourceClaimTemplates = &coreresource.Definition{
	Resource: "resourceclaimtemplates", Singular: "resourceclaimtemplate", Namespaced: true,
	New:                 func() runtime.Object { return &resourcev1.ResourceClaimTemplate{} },
	NewList:             func() runtime.Object { return &resourcev1.ResourceClaimTemplateList{} },
	Table:               printers.ResourceClaimTemplate,
	ReturnDeletedObject: true,
	PrepareForCreate: func(_ context.Context, obj runtime.Object) {
		dropClaimSpecFields(&obj.(*resourcev1.ResourceClaimTemplate).Spec.Spec, nil)
	},
	PrepareForUpdate: func(_ context.Context, obj, old runtime.Object) {
		dropClaimSpecFields(&obj.(*resourcev1.ResourceClaimTemplate).Spec.Spec, &old.(*resourcev1.ResourceClaimTemplate).Spec.Spec)
	},
	Validate:       coreresource.Check(validation.ValidateResourceClaimTemplate),
	ValidateUpdate: coreresource.CheckUpdate(validation.ValidateResourceClaimTemplateUpdate),
}

// resourceSlices follow pkg/registry/resource/resourceslice: a generation, and field selectors
// for the node, driver and pool that kubelets and drivers list their own slices with.
var resourceSlices = &coreresource.Definition{
	Resource: "resourceslices", Singular: "resourceslice",
	New:                 func() runtime.Object { return &resourcev1.ResourceSlice{} },
	NewList:             func() runtime.Object { return &resourcev1.ResourceSliceList{} },
	Table:               printers.ResourceSlice,
	Generation:          true,
	ReturnDeletedObject: true,
	FieldSelectors:      []string{resourcev1.ResourceSliceSelectorNodeName, resourcev1.ResourceSliceSelectorDriver, resourcev1.ResourceSliceSelectorPoolName},
	Fields: coreresource.FieldsOf(func(s *resourcev1.ResourceSlice) fields.Set {
		return fields.Set{
			resourcev1.ResourceSliceSelectorNodeName: ptr.Deref(s.Spec.NodeName, ""),
			resourcev1.ResourceSliceSelectorDriver:   s.Spec.Driver,
			resourcev1.ResourceSliceSelectorPoolName: s.Spec.Pool.Name,
		}
	}),
	PrepareForCreate: func(_ context.Context, obj runtime.Object) {
		dropSliceFields(obj.(*resourcev1.ResourceSlice), nil)
	},
	PrepareForUpdate: func(_ context.Context, obj, old runtime.Object) {
		dropSliceFields(obj.(*resourcev1.ResourceSlice), old.(*resourcev1.ResourceSlice))
	},
	// Driver names are DNS subdomains, in which case does not matter; lower case is the norm.
	Warnings: func(obj runtime.Object) []string {
		if driver := obj.(*resourcev1.ResourceSlice).Spec.Driver; driver != strings.ToLower(driver) {
			return []string{fmt.Sprintf("spec.driver: driver names should be lowercase; %q contains uppercase characters", driver)}
		}
		return nil
	},
	Validate:       coreresource.Check(validation.ValidateResourceSlice),
	ValidateUpdate: coreresource.CheckUpdate(validation.ValidateResourceSliceUpdate),
}

// definitions are the group's resources, each declared once.
var definitions = []*coreresource.Definition{deviceClasses, deviceTaintRules, resourceClaims, resourceClaimTemplates, resourceSlices}
