package core

import (
	"encoding/json"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/apichain/apichain/servers/core/validation/validationtest"
)

// kinds are this package's kinds, each prepared as the registry prepares it.
var kinds = map[string]validationtest.Kind{
	"ConfigMap":             validationtest.Of(ValidateConfigMap, ValidateConfigMapUpdate),
	"Secret":                validationtest.Of(ValidateSecret, ValidateSecretUpdate, mergeStringData),
	"ServiceAccount":        validationtest.Of(ValidateServiceAccount, ValidateServiceAccountUpdate),
	"Namespace":             validationtest.Of(ValidateNamespace, ValidateNamespaceUpdate),
	"Node":                  validationtest.Of(ValidateNode, ValidateNodeUpdate, syncPodCIDR),
	"Service":               validationtest.Of(ValidateService, ValidateServiceUpdate, allocate),
	"Endpoints":             validationtest.Of(ValidateEndpoints, ValidateEndpointsUpdate),
	"Event":                 validationtest.Of(ValidateEvent, ValidateEventUpdate),
	"ResourceQuota":         validationtest.Of(ValidateResourceQuota, ValidateResourceQuotaUpdate),
	"LimitRange":            validationtest.Of(ValidateLimitRange, ValidateLimitRangeUpdate),
	"ReplicationController": validationtest.Of(ValidateReplicationController, ValidateReplicationControllerUpdate),
}

// TestCorpus runs kube-apiserver's validation corpus cases of this package's kinds through
// its functions.
func TestCorpus(t *testing.T) {
	// 61 cases of these kinds are decided by validation.
	validationtest.Corpus(t, kinds, 61, map[string]string{
		"Service/cluster-ip-out-of-range": "the registry's IP allocator refuses it",
	})
}

// TestAccepted: what kube-apiserver accepted and returned (the reference's defaulted objects)
// is valid, on create and as an update that changes nothing.
func TestAccepted(t *testing.T) {
	for file, kind := range map[string]string{
		"configmap.json": "ConfigMap", "secret.json": "Secret", "serviceaccount.json": "ServiceAccount",
		"namespace.json": "Namespace", "node.json": "Node", "service.json": "Service", "service-nodeport.json": "Service",
		"event.json": "Event", "resourcequota.json": "ResourceQuota", "limitrange.json": "LimitRange",
		"replicationcontroller.json": "ReplicationController",
	} {
		k := kinds[kind]
		obj := k.New()
		if err := json.Unmarshal(validationtest.ReadReference(t, "defaulted/"+file), obj); err != nil {
			t.Fatal(err)
		}
		validationtest.Expect(t, file+" create", validationtest.Merged(t, obj, nil, k.Create(obj)))
		obj.(metav1.Object).SetResourceVersion("1")
		updated := obj.DeepCopyObject()
		validationtest.Expect(t, file+" update", validationtest.Merged(t, updated, obj, k.Update(updated, obj)))
	}
}

// The registry's preparations that validation counts on (servers/core/registry/core).

func mergeStringData(s, _ *corev1.Secret) {
	for k, v := range s.StringData {
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		s.Data[k] = []byte(v)
	}
	s.StringData = nil
}

func syncPodCIDR(n, _ *corev1.Node) {
	if len(n.Spec.PodCIDRs) == 0 && n.Spec.PodCIDR != "" {
		n.Spec.PodCIDRs = []string{n.Spec.PodCIDR}
	}
}

// allocate gives a Service what a single-stack IPv4 cluster's allocator gives it.
func allocate(svc, _ *corev1.Service) {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return
	}
	if svc.Spec.IPFamilyPolicy == nil {
		svc.Spec.IPFamilyPolicy = ptr.To(corev1.IPFamilyPolicySingleStack)
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	if svc.Spec.ClusterIP == "" {
		svc.Spec.ClusterIP = "10.0.0.10"
	}
	if len(svc.Spec.ClusterIPs) == 0 {
		svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
	}
}
