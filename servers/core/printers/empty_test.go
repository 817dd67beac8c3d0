package printers

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

type printerObject struct {
	printer Printer
	obj     runtime.Object
}

// emptyObjects pairs every exported Printer with an empty object of its kind.
func emptyObjects() []printerObject {
	return []printerObject{
		{Namespace, &corev1.Namespace{}}, {ConfigMap, &corev1.ConfigMap{}}, {Secret, &corev1.Secret{}},
		{ServiceAccount, &corev1.ServiceAccount{}}, {Event, &corev1.Event{}}, {Service, &corev1.Service{}},
		{Endpoints, &corev1.Endpoints{}}, {Node, &corev1.Node{}}, {Pod, &corev1.Pod{}}, {PodTemplate, &corev1.PodTemplate{}},
		{ReplicationController, &corev1.ReplicationController{}}, {PersistentVolume, &corev1.PersistentVolume{}},
		{PersistentVolumeClaim, &corev1.PersistentVolumeClaim{}}, {LimitRange, &corev1.LimitRange{}},
		{ResourceQuota, &corev1.ResourceQuota{}}, {ComponentStatus, &corev1.ComponentStatus{}},
		{EndpointSlice, &discoveryv1.EndpointSlice{}}, {Lease, &coordinationv1.Lease{}},
		{Deployment, &appsv1.Deployment{}}, {ReplicaSet, &appsv1.ReplicaSet{}}, {StatefulSet, &appsv1.StatefulSet{}},
		{DaemonSet, &appsv1.DaemonSet{}}, {ControllerRevision, &appsv1.ControllerRevision{}},
		{Job, &batchv1.Job{}}, {CronJob, &batchv1.CronJob{}}, {HorizontalPodAutoscaler, &autoscalingv2.HorizontalPodAutoscaler{}},
		{EventsV1Event, &eventsv1.Event{}}, {PodDisruptionBudget, &policyv1.PodDisruptionBudget{}},
		{PriorityClass, &schedulingv1.PriorityClass{}}, {Ingress, &networkingv1.Ingress{}},
		{IngressClass, &networkingv1.IngressClass{}}, {NetworkPolicy, &networkingv1.NetworkPolicy{}},
		{StorageClass, &storagev1.StorageClass{}}, {Role, &rbacv1.Role{}}, {RoleBinding, &rbacv1.RoleBinding{}},
		{ClusterRole, &rbacv1.ClusterRole{}}, {ClusterRoleBinding, &rbacv1.ClusterRoleBinding{}},
		{ValidatingWebhookConfiguration, &admissionregistrationv1.ValidatingWebhookConfiguration{}},
		{MutatingWebhookConfiguration, &admissionregistrationv1.MutatingWebhookConfiguration{}},
		{ValidatingAdmissionPolicy, &admissionregistrationv1.ValidatingAdmissionPolicy{}},
		{ValidatingAdmissionPolicyBinding, &admissionregistrationv1.ValidatingAdmissionPolicyBinding{}},
		{CertificateSigningRequest, &certificatesv1.CertificateSigningRequest{}},
		{ClusterTrustBundle, &certificatesv1.ClusterTrustBundle{}}, {PodCertificateRequest, &certificatesv1.PodCertificateRequest{}},
		{DeviceClass, &resourcev1.DeviceClass{}}, {DeviceTaintRule, &resourcev1.DeviceTaintRule{}},
		{ResourceClaim, &resourcev1.ResourceClaim{}}, {ResourceClaimTemplate, &resourcev1.ResourceClaimTemplate{}},
		{ResourceSlice, &resourcev1.ResourceSlice{}}, {StorageVersionMigration, &storagemigrationv1.StorageVersionMigration{}},
	}
}
