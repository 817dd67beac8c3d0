package defaults

// SetObjectDefaults_<Kind> for the core/v1 kinds, following kubernetes v1.37.2
// pkg/apis/core/v1/zz_generated.defaults.go function by function (same names,
// same order of nested defaulters). Kinds with no defaulting upstream (Event,
// ServiceAccount) get documented no-op functions so callers can treat every
// kind uniformly; they are not registered in the scheme, exactly as upstream.

import (
	v1 "k8s.io/api/core/v1"
)

func SetObjectDefaults_ConfigMap(in *v1.ConfigMap) {
	SetDefaults_ConfigMap(in)
}

func SetObjectDefaults_ConfigMapList(in *v1.ConfigMapList) {
	for i := range in.Items {
		SetObjectDefaults_ConfigMap(&in.Items[i])
	}
}

func SetObjectDefaults_Endpoints(in *v1.Endpoints) {
	SetDefaults_Endpoints(in)
}

func SetObjectDefaults_EndpointsList(in *v1.EndpointsList) {
	for i := range in.Items {
		SetObjectDefaults_Endpoints(&in.Items[i])
	}
}

// SetObjectDefaults_Event is a no-op: upstream generates no defaulter for core/v1 Event.
func SetObjectDefaults_Event(in *v1.Event) {}

// SetObjectDefaults_EventList is a no-op: upstream generates no defaulter for core/v1 EventList.
func SetObjectDefaults_EventList(in *v1.EventList) {}

func SetObjectDefaults_LimitRange(in *v1.LimitRange) {
	for i := range in.Spec.Limits {
		a := &in.Spec.Limits[i]
		SetDefaults_LimitRangeItem(a)
		SetDefaults_ResourceList(&a.Max)
		SetDefaults_ResourceList(&a.Min)
		SetDefaults_ResourceList(&a.Default)
		SetDefaults_ResourceList(&a.DefaultRequest)
		SetDefaults_ResourceList(&a.MaxLimitRequestRatio)
	}
}

func SetObjectDefaults_LimitRangeList(in *v1.LimitRangeList) {
	for i := range in.Items {
		SetObjectDefaults_LimitRange(&in.Items[i])
	}
}

func SetObjectDefaults_Namespace(in *v1.Namespace) {
	SetDefaults_Namespace(in)
	SetDefaults_NamespaceStatus(&in.Status)
}

func SetObjectDefaults_NamespaceList(in *v1.NamespaceList) {
	for i := range in.Items {
		SetObjectDefaults_Namespace(&in.Items[i])
	}
}

func SetObjectDefaults_Node(in *v1.Node) {
	SetDefaults_NodeStatus(&in.Status)
	SetDefaults_ResourceList(&in.Status.Capacity)
	SetDefaults_ResourceList(&in.Status.Allocatable)
}

func SetObjectDefaults_NodeList(in *v1.NodeList) {
	for i := range in.Items {
		SetObjectDefaults_Node(&in.Items[i])
	}
}

func SetObjectDefaults_PersistentVolume(in *v1.PersistentVolume) {
	SetDefaults_PersistentVolume(in)
	SetDefaults_ResourceList(&in.Spec.Capacity)
	if in.Spec.PersistentVolumeSource.HostPath != nil {
		SetDefaults_HostPathVolumeSource(in.Spec.PersistentVolumeSource.HostPath)
	}
	if in.Spec.PersistentVolumeSource.RBD != nil {
		if in.Spec.PersistentVolumeSource.RBD.RBDPool == "" {
			in.Spec.PersistentVolumeSource.RBD.RBDPool = "rbd"
		}
		if in.Spec.PersistentVolumeSource.RBD.RadosUser == "" {
			in.Spec.PersistentVolumeSource.RBD.RadosUser = "admin"
		}
		if in.Spec.PersistentVolumeSource.RBD.Keyring == "" {
			in.Spec.PersistentVolumeSource.RBD.Keyring = "/etc/ceph/keyring"
		}
	}
	if in.Spec.PersistentVolumeSource.ISCSI != nil {
		if in.Spec.PersistentVolumeSource.ISCSI.ISCSIInterface == "" {
			in.Spec.PersistentVolumeSource.ISCSI.ISCSIInterface = "default"
		}
	}
	if in.Spec.PersistentVolumeSource.AzureDisk != nil {
		setAzureDiskDefaults(in.Spec.PersistentVolumeSource.AzureDisk)
	}
	if in.Spec.PersistentVolumeSource.ScaleIO != nil {
		if in.Spec.PersistentVolumeSource.ScaleIO.StorageMode == "" {
			in.Spec.PersistentVolumeSource.ScaleIO.StorageMode = "ThinProvisioned"
		}
		if in.Spec.PersistentVolumeSource.ScaleIO.FSType == "" {
			in.Spec.PersistentVolumeSource.ScaleIO.FSType = "xfs"
		}
	}
}

func SetObjectDefaults_PersistentVolumeList(in *v1.PersistentVolumeList) {
	for i := range in.Items {
		SetObjectDefaults_PersistentVolume(&in.Items[i])
	}
}

func SetObjectDefaults_PersistentVolumeClaim(in *v1.PersistentVolumeClaim) {
	setPersistentVolumeClaimDefaults(in)
}

func SetObjectDefaults_PersistentVolumeClaimList(in *v1.PersistentVolumeClaimList) {
	for i := range in.Items {
		SetObjectDefaults_PersistentVolumeClaim(&in.Items[i])
	}
}

func SetObjectDefaults_Pod(in *v1.Pod) {
	SetDefaults_Pod(in)
	setPodSpecDefaults(&in.Spec)
	SetDefaults_PodStatus(&in.Status)
	for _, statuses := range [][]v1.ContainerStatus{in.Status.InitContainerStatuses, in.Status.ContainerStatuses, in.Status.EphemeralContainerStatuses} {
		for i := range statuses {
			a := &statuses[i]
			SetDefaults_ResourceList(&a.AllocatedResources)
			if a.Resources != nil {
				SetDefaults_ResourceList(&a.Resources.Limits)
				SetDefaults_ResourceList(&a.Resources.Requests)
			}
		}
	}
	SetDefaults_ResourceList(&in.Status.AllocatedResources)
	if in.Status.Resources != nil {
		SetDefaults_ResourceList(&in.Status.Resources.Limits)
		SetDefaults_ResourceList(&in.Status.Resources.Requests)
	}
}

func SetObjectDefaults_PodList(in *v1.PodList) {
	for i := range in.Items {
		SetObjectDefaults_Pod(&in.Items[i])
	}
}

func SetObjectDefaults_PodLogOptions(in *v1.PodLogOptions) {
	SetDefaults_PodLogOptions(in)
}

func SetObjectDefaults_PodTemplate(in *v1.PodTemplate) {
	setPodSpecDefaults(&in.Template.Spec)
}

func SetObjectDefaults_PodTemplateList(in *v1.PodTemplateList) {
	for i := range in.Items {
		SetObjectDefaults_PodTemplate(&in.Items[i])
	}
}

func SetObjectDefaults_ReplicationController(in *v1.ReplicationController) {
	SetDefaults_ReplicationController(in)
	// +default=1 on ReplicationControllerSpec.Replicas (declarative default).
	if in.Spec.Replicas == nil {
		var ptrVar1 int32 = 1
		in.Spec.Replicas = &ptrVar1
	}
	if in.Spec.Template != nil {
		setPodSpecDefaults(&in.Spec.Template.Spec)
	}
}

func SetObjectDefaults_ReplicationControllerList(in *v1.ReplicationControllerList) {
	for i := range in.Items {
		SetObjectDefaults_ReplicationController(&in.Items[i])
	}
}

func SetObjectDefaults_ResourceQuota(in *v1.ResourceQuota) {
	SetDefaults_ResourceList(&in.Spec.Hard)
	SetDefaults_ResourceList(&in.Status.Hard)
	SetDefaults_ResourceList(&in.Status.Used)
}

func SetObjectDefaults_ResourceQuotaList(in *v1.ResourceQuotaList) {
	for i := range in.Items {
		SetObjectDefaults_ResourceQuota(&in.Items[i])
	}
}

func SetObjectDefaults_Secret(in *v1.Secret) {
	SetDefaults_Secret(in)
}

func SetObjectDefaults_SecretList(in *v1.SecretList) {
	for i := range in.Items {
		SetObjectDefaults_Secret(&in.Items[i])
	}
}

// SetObjectDefaults_ServiceAccount is a no-op: upstream generates no defaulter for ServiceAccount.
func SetObjectDefaults_ServiceAccount(in *v1.ServiceAccount) {}

// SetObjectDefaults_ServiceAccountList is a no-op: upstream generates no defaulter for ServiceAccountList.
func SetObjectDefaults_ServiceAccountList(in *v1.ServiceAccountList) {}

func SetObjectDefaults_Service(in *v1.Service) {
	SetDefaults_Service(in)
	for i := range in.Spec.Ports {
		a := &in.Spec.Ports[i]
		if a.Protocol == "" {
			a.Protocol = "TCP"
		}
	}
}

func SetObjectDefaults_ServiceList(in *v1.ServiceList) {
	for i := range in.Items {
		SetObjectDefaults_Service(&in.Items[i])
	}
}
