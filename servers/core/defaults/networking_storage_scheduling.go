package defaults

// Defaults for networking.k8s.io/v1, storage.k8s.io/v1 (StorageClass) and
// scheduling.k8s.io/v1, ported from kubernetes v1.37.2
// pkg/apis/{networking,storage,scheduling}/v1/defaults.go and their
// zz_generated.defaults.go. Each group's AddToScheme (servers/core/registry/<group>)
// registers its own; certificates.k8s.io/v1 has no defaults for
// CertificateSigningRequest upstream.

import (
	v1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/utils/ptr"
)

// RegisterNetworkingDefaults adds the defaulting funcs of networking/v1.
func RegisterNetworkingDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&networkingv1.IngressClass{}, func(obj interface{}) { SetObjectDefaults_IngressClass(obj.(*networkingv1.IngressClass)) })
	scheme.AddTypeDefaultingFunc(&networkingv1.IngressClassList{}, func(obj interface{}) {
		for i := range obj.(*networkingv1.IngressClassList).Items {
			SetObjectDefaults_IngressClass(&obj.(*networkingv1.IngressClassList).Items[i])
		}
	})
	scheme.AddTypeDefaultingFunc(&networkingv1.NetworkPolicy{}, func(obj interface{}) { SetObjectDefaults_NetworkPolicy(obj.(*networkingv1.NetworkPolicy)) })
	scheme.AddTypeDefaultingFunc(&networkingv1.NetworkPolicyList{}, func(obj interface{}) {
		for i := range obj.(*networkingv1.NetworkPolicyList).Items {
			SetObjectDefaults_NetworkPolicy(&obj.(*networkingv1.NetworkPolicyList).Items[i])
		}
	})
	return nil
}

// SetObjectDefaults_IngressClass defaults the scope of an IngressClass's parameters to Cluster.
func SetObjectDefaults_IngressClass(obj *networkingv1.IngressClass) {
	if obj.Spec.Parameters != nil && obj.Spec.Parameters.Scope == nil {
		obj.Spec.Parameters.Scope = ptr.To(networkingv1.IngressClassParametersReferenceScopeCluster)
	}
}

// SetObjectDefaults_NetworkPolicy defaults policyTypes and port protocols.
func SetObjectDefaults_NetworkPolicy(obj *networkingv1.NetworkPolicy) {
	if len(obj.Spec.PolicyTypes) == 0 {
		// Any policy that does not specify policyTypes implies at least "Ingress".
		obj.Spec.PolicyTypes = []networkingv1.PolicyType{networkingv1.PolicyTypeIngress}
		if len(obj.Spec.Egress) != 0 {
			obj.Spec.PolicyTypes = append(obj.Spec.PolicyTypes, networkingv1.PolicyTypeEgress)
		}
	}
	for i := range obj.Spec.Ingress {
		for j := range obj.Spec.Ingress[i].Ports {
			setNetworkPolicyPortDefaults(&obj.Spec.Ingress[i].Ports[j])
		}
	}
	for i := range obj.Spec.Egress {
		for j := range obj.Spec.Egress[i].Ports {
			setNetworkPolicyPortDefaults(&obj.Spec.Egress[i].Ports[j])
		}
	}
}

func setNetworkPolicyPortDefaults(obj *networkingv1.NetworkPolicyPort) {
	// Default any undefined Protocol fields to TCP.
	if obj.Protocol == nil {
		obj.Protocol = ptr.To(v1.ProtocolTCP)
	}
}

// RegisterStorageDefaults adds the defaulting funcs of storage/v1 StorageClass.
func RegisterStorageDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&storagev1.StorageClass{}, func(obj interface{}) { SetObjectDefaults_StorageClass(obj.(*storagev1.StorageClass)) })
	scheme.AddTypeDefaultingFunc(&storagev1.StorageClassList{}, func(obj interface{}) {
		for i := range obj.(*storagev1.StorageClassList).Items {
			SetObjectDefaults_StorageClass(&obj.(*storagev1.StorageClassList).Items[i])
		}
	})
	return nil
}

// SetObjectDefaults_StorageClass defaults reclaimPolicy to Delete and volumeBindingMode to Immediate.
func SetObjectDefaults_StorageClass(obj *storagev1.StorageClass) {
	if obj.ReclaimPolicy == nil {
		obj.ReclaimPolicy = ptr.To(v1.PersistentVolumeReclaimDelete)
	}
	if obj.VolumeBindingMode == nil {
		obj.VolumeBindingMode = ptr.To(storagev1.VolumeBindingImmediate)
	}
}

// RegisterSchedulingDefaults adds the defaulting funcs of scheduling/v1.
func RegisterSchedulingDefaults(scheme *runtime.Scheme) error {
	scheme.AddTypeDefaultingFunc(&schedulingv1.PriorityClass{}, func(obj interface{}) { SetObjectDefaults_PriorityClass(obj.(*schedulingv1.PriorityClass)) })
	scheme.AddTypeDefaultingFunc(&schedulingv1.PriorityClassList{}, func(obj interface{}) {
		for i := range obj.(*schedulingv1.PriorityClassList).Items {
			SetObjectDefaults_PriorityClass(&obj.(*schedulingv1.PriorityClassList).Items[i])
		}
	})
	return nil
}

// SetObjectDefaults_PriorityClass defaults preemptionPolicy to PreemptLowerPriority.
func SetObjectDefaults_PriorityClass(obj *schedulingv1.PriorityClass) {
	if obj.PreemptionPolicy == nil {
		obj.PreemptionPolicy = ptr.To(v1.PreemptLowerPriority)
	}
}
