package resource

import (
	"math"
	"strings"

	resourcev1 "k8s.io/api/resource/v1"
	metavalidation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	utilvalidation "k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/apichain/apichain/servers/core/validation"
)

// ValidateResourceClaimStatusUpdate is the rule list of a claim's /status: who uses the claim
// (reservedFor), which devices were allocated for it (set once, then never changed) and what
// their drivers report about them.
func ValidateResourceClaimStatusUpdate(c, old *resourcev1.ResourceClaim) field.ErrorList {
	s, was := &c.Status, &old.Status
	reserved := status.Child("reservedFor")
	allocated := allocatedDevices(s.Allocation)
	errs := validation.Join(
		validation.MetaUpdate(&c.ObjectMeta, &old.ObjectMeta, metadata),
		set(reserved, s.ReservedFor, resourcev1.ResourceClaimReservedForMaxSize,
			func(r resourcev1.ResourceClaimConsumerReference) string { return string(r.UID) },
			func(p *field.Path, r *resourcev1.ResourceClaimConsumerReference) field.ErrorList {
				return validation.Join(
					validation.Required(p.Child("resource"), r.Resource),
					validation.Required(p.Child("name"), r.Name),
					validation.Required(p.Child("uid"), string(r.UID)),
				)
			}),
		// No limit but the generated one: as many as the allocation has devices.
		set(status.Child("devices"), s.Devices, math.MaxInt,
			func(d resourcev1.AllocatedDeviceStatus) string {
				return deviceKey(d.Driver, d.Pool, d.Device, d.ShareID)
			},
			func(p *field.Path, d *resourcev1.AllocatedDeviceStatus) field.ErrorList {
				return deviceStatus(p, d, allocated)
			}),
	)
	if len(s.ReservedFor) > 0 {
		switch {
		case s.Allocation == nil:
			errs = append(errs, field.Forbidden(reserved, "may not be specified when `allocated` is not set"))
		case c.DeletionTimestamp != nil && len(sets.New(s.ReservedFor...).Difference(sets.New(was.ReservedFor...))) > 0:
			// A claim being deleted may lose users, not gain them.
			errs = append(errs, field.Forbidden(reserved, "new entries may not be added while `deallocationRequested` or `deletionTimestamp` are set"))
		}
	}
	switch {
	case s.Allocation != nil && was.Allocation != nil:
		// Set once (a generated rule too); not checked again, as today's rules are stricter
		// than some an allocation was stored under.
		errs = append(errs, declared("update", validation.Immutable(status.Child("allocation"), s.Allocation, was.Allocation))...)
	case s.Allocation != nil:
		errs = append(errs, allocation(status.Child("allocation"), s.Allocation, namesOf(&c.Spec.Devices))...)
	}
	return errs
}

// allocation: the devices picked for each request and the configuration they get, and the nodes
// that can reach them.
func allocation(p *field.Path, a *resourcev1.AllocationResult, requests requestNames) field.ErrorList {
	return validation.Join(
		list(p.Child("devices", "results"), a.Devices.Results, resourcev1.AllocationResultsMaxSize, func(p *field.Path, r *resourcev1.DeviceRequestAllocationResult) field.ErrorList {
			var share field.ErrorList
			if r.ShareID != nil {
				share = uid(p.Child("shareID"), string(*r.ShareID))
			}
			return validation.Join(
				requestRef(p.Child("request"), r.Request, requests),
				driverName(p.Child("driver"), r.Driver, true),
				poolName(p.Child("pool"), r.Pool, true),
				validation.DNSLabel(p.Child("device"), r.Device),
				bindingConditions(p, r.BindingConditions, r.BindingFailureConditions),
				validation.Each(p.Child("tolerations"), r.Tolerations, toleration),
				share,
			)
		}),
		// The class's configuration and the claim's, for the devices of some requests.
		list(p.Child("devices", "config"), a.Devices.Config, 2*resourcev1.DeviceConfigMaxSize, func(p *field.Path, c *resourcev1.DeviceAllocationConfiguration) field.ErrorList {
			return validation.Join(
				declared("", validation.OneOf(p.Child("source"), c.Source, resourcev1.AllocationConfigSourceClaim, resourcev1.AllocationConfigSourceClass)),
				requestRefs(p.Child("requests"), c.Requests, requests),
				opaqueConfig(p, c.DeviceConfiguration, false),
			)
		}),
		nodeSelectorOf(p.Child("nodeSelector"), a.NodeSelector),
	)
}

// uid: a share of a device is named by a UUID, lower case (a generated rule too).
func uid(p *field.Path, id string) field.ErrorList {
	const hex = "0123456789abcdef"
	ok := len(id) == 36
	for i := 0; ok && i < len(id); i++ {
		switch i {
		case 8, 13, 18, 23:
			ok = id[i] == '-'
		default:
			ok = strings.IndexByte(hex, id[i]) >= 0
		}
	}
	return declared("format=k8s-uuid", validation.When(!ok, field.Invalid(p, id,
		"uid must be in RFC 4122 normalized form, `xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx` with lowercase hexadecimal characters")))
}

// deviceKey names an allocated device as "driver/pool/device", with "/shareID" for one share
// of a device that several claims use.
func deviceKey(driver, pool, device string, share *string) string {
	key := driver + "/" + pool + "/" + device
	if share != nil && *share != "" {
		key += "/" + *share
	}
	return key
}

func allocatedDevices(a *resourcev1.AllocationResult) sets.Set[string] {
	keys := sets.New[string]()
	if a == nil {
		return keys
	}
	for _, r := range a.Devices.Results {
		var share *string
		if r.ShareID != nil {
			s := string(*r.ShareID)
			share = &s
		}
		keys.Insert(deviceKey(r.Driver, r.Pool, r.Device, share))
	}
	return keys
}

// deviceStatus: what a driver reports about one device allocated for the claim: conditions,
// opaque data and the network interface it set up.
func deviceStatus(p *field.Path, d *resourcev1.AllocatedDeviceStatus, allocated sets.Set[string]) field.ErrorList {
	key := deviceKey(d.Driver, d.Pool, d.Device, d.ShareID)
	conditions := p.Child("conditions")
	errs := validation.Join(
		driverName(p.Child("driver"), d.Driver, false),
		poolName(p.Child("pool"), d.Pool, false),
		validation.DNSLabel(p.Child("device"), d.Device),
		validation.IfSet(p.Child("shareID"), d.ShareID, uid),
		validation.When(!allocated.Has(key), field.Invalid(p, key, "must be an allocated device in the claim")),
		validation.When(len(d.Conditions) > resourcev1.AllocatedDeviceStatusMaxConditions,
			field.TooMany(conditions, len(d.Conditions), resourcev1.AllocatedDeviceStatusMaxConditions)),
		metavalidation.ValidateConditions(d.Conditions, conditions),
	)
	if d.Data != nil && len(d.Data.Raw) > 0 {
		errs = append(errs, jsonObject(p.Child("data"), *d.Data, false, resourcev1.AllocatedDeviceStatusDataMaxLength)...)
	}
	if n := d.NetworkData; n != nil {
		network := p.Child("networkData")
		ips := network.Child("ips")
		errs = append(errs, validation.Join(
			declared("maxBytes", validation.When(len(n.InterfaceName) > resourcev1.NetworkDeviceDataInterfaceNameMaxLength,
				field.TooLong(network.Child("interfaceName"), "", resourcev1.NetworkDeviceDataInterfaceNameMaxLength))),
			declared("maxBytes", validation.When(len(n.HardwareAddress) > resourcev1.NetworkDeviceDataHardwareAddressMaxLength,
				field.TooLong(network.Child("hardwareAddress"), "", resourcev1.NetworkDeviceDataHardwareAddressMaxLength))),
		)...)
		errs = append(errs, set(ips, n.IPs, resourcev1.NetworkDeviceDataMaxIPs, itself, func(p *field.Path, ip *string) field.ErrorList {
			return utilvalidation.IsValidInterfaceAddress(p, *ip)
		})...)
	}
	return errs
}
