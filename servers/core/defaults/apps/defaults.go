package apps

import (
	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"

	"github.com/apichain/apichain/servers/core/defaults/fill"
)

// SetDefaults_Deployment: one replica, replaced by a rolling update that may run a quarter more
// and a quarter fewer pods than wanted; ten old ReplicaSets kept; stuck after ten minutes.
func SetDefaults_Deployment(d *appsv1.Deployment) {
	spec := &d.Spec
	fill.Nil(&spec.Replicas, 1)
	fill.Nil(&spec.RevisionHistoryLimit, 10)
	fill.Nil(&spec.ProgressDeadlineSeconds, 600)
	fill.Zero(&spec.Strategy.Type, appsv1.RollingUpdateDeploymentStrategyType)
	if spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
		fill.Nil(&spec.Strategy.RollingUpdate, appsv1.RollingUpdateDeployment{})
		fill.Nil(&spec.Strategy.RollingUpdate.MaxSurge, intstr.FromString("25%"))
		fill.Nil(&spec.Strategy.RollingUpdate.MaxUnavailable, intstr.FromString("25%"))
	}
}

// SetDefaults_ReplicaSet: one replica.
func SetDefaults_ReplicaSet(rs *appsv1.ReplicaSet) {
	fill.Nil(&rs.Spec.Replicas, 1)
}

// SetDefaults_DaemonSet: a rolling update, one node's pod at a time, none extra; ten old
// revisions kept.
func SetDefaults_DaemonSet(ds *appsv1.DaemonSet) {
	spec := &ds.Spec
	fill.Nil(&spec.RevisionHistoryLimit, 10)
	fill.Zero(&spec.UpdateStrategy.Type, appsv1.RollingUpdateDaemonSetStrategyType)
	if spec.UpdateStrategy.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		fill.Nil(&spec.UpdateStrategy.RollingUpdate, appsv1.RollingUpdateDaemonSet{})
		fill.Nil(&spec.UpdateStrategy.RollingUpdate.MaxUnavailable, intstr.FromInt32(1))
		fill.Nil(&spec.UpdateStrategy.RollingUpdate.MaxSurge, intstr.FromInt32(0))
	}
}

// SetDefaults_StatefulSet: one replica, started in order; a rolling update of every ordinal,
// one pod at a time; claims kept when the set is scaled down or deleted; ten old revisions kept.
func SetDefaults_StatefulSet(ss *appsv1.StatefulSet) {
	spec := &ss.Spec
	fill.Nil(&spec.Replicas, 1)
	fill.Nil(&spec.RevisionHistoryLimit, 10)
	fill.Zero(&spec.PodManagementPolicy, appsv1.OrderedReadyPodManagement)

	// Only a strategy of no type gets a rollingUpdate; an explicit RollingUpdate without one
	// keeps it nil.
	if spec.UpdateStrategy.Type == "" {
		spec.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		fill.Nil(&spec.UpdateStrategy.RollingUpdate, appsv1.RollingUpdateStatefulSetStrategy{})
	}
	if ru := spec.UpdateStrategy.RollingUpdate; ru != nil && spec.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType {
		fill.Nil(&ru.Partition, 0)
		fill.Nil(&ru.MaxUnavailable, intstr.FromInt32(1))
	}

	fill.Nil(&spec.PersistentVolumeClaimRetentionPolicy, appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{})
	retention := spec.PersistentVolumeClaimRetentionPolicy
	fill.Zero(&retention.WhenDeleted, appsv1.RetainPersistentVolumeClaimRetentionPolicyType)
	fill.Zero(&retention.WhenScaled, appsv1.RetainPersistentVolumeClaimRetentionPolicyType)
}
