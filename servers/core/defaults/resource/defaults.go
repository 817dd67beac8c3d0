package resource

import (
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_ExactDeviceRequest: a request asks for exactly one device unless it says otherwise.
func SetDefaults_ExactDeviceRequest(r *resourcev1.ExactDeviceRequest) {
	allocation(&r.AllocationMode, &r.Count)
}

// SetDefaults_DeviceSubRequest: each alternative of a firstAvailable list, the same.
func SetDefaults_DeviceSubRequest(r *resourcev1.DeviceSubRequest) {
	allocation(&r.AllocationMode, &r.Count)
}

// allocation: ExactCount when no mode is given, and then a count of 1 when none is given
// (All takes every matching device and no count).
func allocation(mode *resourcev1.DeviceAllocationMode, count *int64) {
	fill.Zero(mode, resourcev1.DeviceAllocationModeExactCount)
	if *mode == resourcev1.DeviceAllocationModeExactCount {
		fill.Zero(count, 1)
	}
}

// SetDefaults_DeviceTaint: a taint is dated when it arrives, to the second (what the wire
// keeps), so that tolerations with a duration count from then.
func SetDefaults_DeviceTaint(t *resourcev1.DeviceTaint) {
	if t.TimeAdded == nil {
		t.TimeAdded = &metav1.Time{Time: time.Now().Truncate(time.Second)}
	}
}
