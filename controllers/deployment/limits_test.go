package deployment

import (
	"maps"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestLimits(t *testing.T) {
	for _, tc := range []struct {
		replicas               int32
		surge, unavail         intstr.IntOrString
		wantSurge, wantUnavail int32
	}{
		{10, intstr.FromString("25%"), intstr.FromString("25%"), 3, 2}, // surge rounds up, unavailability down
		{3, intstr.FromString("25%"), intstr.FromString("25%"), 1, 0},
		{3, intstr.FromInt32(0), intstr.FromInt32(0), 0, 1}, // both 0 would never move
		{2, intstr.FromInt32(1), intstr.FromInt32(5), 1, 2},
	} {
		d := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: &tc.replicas, Strategy: appsv1.DeploymentStrategy{
			Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: &tc.surge, MaxUnavailable: &tc.unavail}}}}
		if s, u := limits(d); s != tc.wantSurge || u != tc.wantUnavail {
			t.Errorf("%d replicas, maxSurge %s, maxUnavailable %s: %d and %d, want %d and %d", tc.replicas, tc.surge.String(), tc.unavail.String(), s, u, tc.wantSurge, tc.wantUnavail)
		}
	}
	recreate := &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](4), Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}}}
	if s, u := limits(recreate); s != 0 || u != 0 {
		t.Errorf("Recreate: %d and %d, want none", s, u)
	}
}

func TestNewAnnotations(t *testing.T) {
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{
		"kubernetes.io/change-cause": "v2", revisionAnnotation: "7", "kubectl.kubernetes.io/last-applied-configuration": "{}"}}}
	for _, tc := range []struct {
		name string
		have map[string]string
		next int64
		want map[string]string
	}{
		{"a new ReplicaSet", nil, 3, map[string]string{"kubernetes.io/change-cause": "v2", revisionAnnotation: "3"}},
		{"the newest already", map[string]string{revisionAnnotation: "3"}, 3, map[string]string{"kubernetes.io/change-cause": "v2", revisionAnnotation: "3"}},
		{"rolled back to", map[string]string{revisionAnnotation: "1", revisionHistoryAnnotation: "0"}, 4,
			map[string]string{"kubernetes.io/change-cause": "v2", revisionAnnotation: "4", revisionHistoryAnnotation: "0,1"}},
	} {
		rs := &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Annotations: tc.have}}
		if got := (&Controller{}).newAnnotations(d, rs, tc.next); !maps.Equal(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.name, got, tc.want)
		}
	}
}
