package validation

// Table tests for LimitRange and ResourceQuota validation; cases follow kubernetes v1.37.2
// pkg/apis/core/validation/validation_test.go (TestValidateLimitRange,
// TestValidateResourceQuota) with its messages.

import (
	"testing"

	v1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestValidateLimitRange(t *testing.T) {
	lr := func(items ...v1.LimitRangeItem) *v1.LimitRange {
		l := &v1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "lr", Namespace: "default"}, Spec: v1.LimitRangeSpec{Limits: items}}
		testScheme.Default(l)
		return l
	}
	q := resource.MustParse
	cases := []struct {
		name string
		lr   *v1.LimitRange
		want []string
	}{
		{"valid", lr(v1.LimitRangeItem{Type: v1.LimitTypeContainer, Default: v1.ResourceList{v1.ResourceCPU: q("100m")}}), nil},
		{"valid pvc", lr(v1.LimitRangeItem{Type: v1.LimitTypePersistentVolumeClaim, Max: v1.ResourceList{v1.ResourceStorage: q("10Gi")}}), nil},
		{"duplicate type", lr(v1.LimitRangeItem{Type: v1.LimitTypePod}, v1.LimitRangeItem{Type: v1.LimitTypePod}),
			[]string{`spec.limits[1].type: Duplicate value: "Pod"`}},
		{"unknown type", lr(v1.LimitRangeItem{Type: "Node"}), []string{`spec.limits[0].type: Invalid value: "Node": must be a standard limit type or fully qualified`}},
		{"pod default", lr(v1.LimitRangeItem{Type: v1.LimitTypePod, Default: v1.ResourceList{v1.ResourceCPU: q("1")}}),
			[]string{"spec.limits[0].default: Forbidden: may not be specified when `type` is 'Pod'"}},
		{"min above max", lr(v1.LimitRangeItem{Type: v1.LimitTypeContainer, Min: v1.ResourceList{v1.ResourceCPU: q("2")}, Max: v1.ResourceList{v1.ResourceCPU: q("1")}}),
			// default and defaultRequest default to max
			[]string{`spec.limits[0].min[cpu]: Invalid value: "2": min value 2 is greater than max value 1`,
				`spec.limits[0].defaultRequest[cpu]: Invalid value: "1": min value 2 is greater than default request value 1`,
				`spec.limits[0].default[cpu]: Invalid value: "2": min value 2 is greater than default value 1`}},
		{"pvc without bounds", lr(v1.LimitRangeItem{Type: v1.LimitTypePersistentVolumeClaim}),
			[]string{`spec.limits[0].limits: Required value: either minimum or maximum storage value is required, but neither was provided`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateLimitRange(tc.lr), tc.want)
	}
}

func TestValidateResourceQuota(t *testing.T) {
	rq := func(mutate func(*v1.ResourceQuota)) *v1.ResourceQuota {
		r := &v1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "rq", Namespace: "default", ResourceVersion: "1"},
			Spec: v1.ResourceQuotaSpec{Hard: v1.ResourceList{v1.ResourcePods: resource.MustParse("10")}}}
		mutate(r)
		testScheme.Default(r)
		return r
	}
	cases := []struct {
		name string
		rq   *v1.ResourceQuota
		want []string
	}{
		{"valid", rq(func(*v1.ResourceQuota) {}), nil},
		{"valid scopes", rq(func(r *v1.ResourceQuota) {
			r.Spec.Scopes = []v1.ResourceQuotaScope{v1.ResourceQuotaScopeNotTerminating}
		}), nil},
		{"fractional pods", rq(func(r *v1.ResourceQuota) { r.Spec.Hard[v1.ResourcePods] = resource.MustParse("1.5") }),
			[]string{`spec.hard[pods]: Invalid value: "1500m": must be an integer`}},
		{"negative", rq(func(r *v1.ResourceQuota) { r.Spec.Hard[v1.ResourceCPU] = resource.MustParse("-1") }),
			[]string{`spec.hard[cpu]: Invalid value: "-1": must be greater than or equal to 0`}},
		{"unknown resource", rq(func(r *v1.ResourceQuota) { r.Spec.Hard["widgets"] = resource.MustParse("1") }),
			[]string{`spec.hard[widgets]: Invalid value: "widgets": must be a standard resource type or fully qualified`,
				`spec.hard[widgets]: Invalid value: "widgets": must be a standard resource for quota`}},
		{"conflicting scopes", rq(func(r *v1.ResourceQuota) {
			r.Spec.Scopes = []v1.ResourceQuotaScope{v1.ResourceQuotaScopeBestEffort, v1.ResourceQuotaScopeNotBestEffort}
		}), []string{`spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes`}},
		{"scope not for resource", rq(func(r *v1.ResourceQuota) {
			r.Spec.Hard = v1.ResourceList{v1.ResourceSecrets: resource.MustParse("1")}
			r.Spec.Scopes = []v1.ResourceQuotaScope{v1.ResourceQuotaScopeTerminating}
		}), []string{`spec.scopes: Invalid value: ["Terminating"]: unsupported scope applied to resource`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateResourceQuota(tc.rq), tc.want)
	}
	old := rq(func(*v1.ResourceQuota) {})
	scoped := old.DeepCopy()
	scoped.Spec.Scopes = []v1.ResourceQuotaScope{v1.ResourceQuotaScopeNotTerminating}
	expectErrors(t, "scopes are immutable", ValidateResourceQuotaUpdate(scoped, old), []string{`spec.scopes: Invalid value: ["NotTerminating"]: field is immutable`})
}
