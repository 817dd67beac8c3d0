package replicaset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/kubernetes"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
)

// replicaSets are ReplicaSets, as they are.
type replicaSets struct {
	client kubernetes.Interface
	lister appslisters.ReplicaSetLister
}

func (r replicaSets) get(namespace, name string) (*appsv1.ReplicaSet, error) {
	return r.lister.ReplicaSets(namespace).Get(name)
}

func (r replicaSets) list(namespace string) ([]*appsv1.ReplicaSet, error) {
	return r.lister.ReplicaSets(namespace).List(labels.Everything())
}

func (r replicaSets) fresh(ctx context.Context, namespace, name string) (metav1.Object, error) {
	return r.client.AppsV1().ReplicaSets(namespace).Get(ctx, name, metav1.GetOptions{})
}

func (r replicaSets) updateStatus(ctx context.Context, rs *appsv1.ReplicaSet, st appsv1.ReplicaSetStatus) error {
	if apiequality.Semantic.DeepEqual(rs.Status, st) {
		return nil
	}
	rs = rs.DeepCopy()
	rs.Status = st
	_, err := r.client.AppsV1().ReplicaSets(rs.Namespace).UpdateStatus(ctx, rs, metav1.UpdateOptions{})
	return err
}

// replicationControllers are ReplicationControllers, each read as the ReplicaSet it amounts
// to: the same metadata, replicas, template and minReadySeconds, its selector as matchLabels.
type replicationControllers struct {
	client kubernetes.Interface
	lister corelisters.ReplicationControllerLister
}

func (r replicationControllers) get(namespace, name string) (*appsv1.ReplicaSet, error) {
	rc, err := r.lister.ReplicationControllers(namespace).Get(name)
	if err != nil {
		return nil, err
	}
	return asReplicaSet(rc), nil
}

func (r replicationControllers) list(namespace string) ([]*appsv1.ReplicaSet, error) {
	rcs, err := r.lister.ReplicationControllers(namespace).List(labels.Everything())
	out := make([]*appsv1.ReplicaSet, 0, len(rcs))
	for _, rc := range rcs {
		out = append(out, asReplicaSet(rc))
	}
	return out, err
}

func (r replicationControllers) fresh(ctx context.Context, namespace, name string) (metav1.Object, error) {
	return r.client.CoreV1().ReplicationControllers(namespace).Get(ctx, name, metav1.GetOptions{})
}

// updateStatus writes st to the ReplicationController rs was read from (which has no
// terminatingReplicas).
func (r replicationControllers) updateStatus(ctx context.Context, rs *appsv1.ReplicaSet, st appsv1.ReplicaSetStatus) error {
	rc, err := r.lister.ReplicationControllers(rs.Namespace).Get(rs.Name)
	if err != nil {
		return err
	}
	status := corev1.ReplicationControllerStatus{Replicas: st.Replicas, FullyLabeledReplicas: st.FullyLabeledReplicas,
		ReadyReplicas: st.ReadyReplicas, AvailableReplicas: st.AvailableReplicas, ObservedGeneration: st.ObservedGeneration}
	for _, c := range st.Conditions {
		status.Conditions = append(status.Conditions, corev1.ReplicationControllerCondition{
			Type: corev1.ReplicationControllerConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message})
	}
	if apiequality.Semantic.DeepEqual(rc.Status, status) {
		return nil
	}
	rc = rc.DeepCopy()
	rc.ResourceVersion = rs.ResourceVersion // the version the status was computed from
	rc.Status = status
	_, err = r.client.CoreV1().ReplicationControllers(rc.Namespace).UpdateStatus(ctx, rc, metav1.UpdateOptions{})
	return err
}

func asReplicaSet(rc *corev1.ReplicationController) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{
		ObjectMeta: *rc.ObjectMeta.DeepCopy(),
		Spec: appsv1.ReplicaSetSpec{
			Replicas:        rc.Spec.Replicas,
			MinReadySeconds: rc.Spec.MinReadySeconds,
			Selector:        &metav1.LabelSelector{MatchLabels: rc.Spec.Selector},
		},
		Status: appsv1.ReplicaSetStatus{Replicas: rc.Status.Replicas, FullyLabeledReplicas: rc.Status.FullyLabeledReplicas,
			ReadyReplicas: rc.Status.ReadyReplicas, AvailableReplicas: rc.Status.AvailableReplicas, ObservedGeneration: rc.Status.ObservedGeneration},
	}
	if rc.Spec.Template != nil {
		rs.Spec.Template = *rc.Spec.Template
	}
	for _, c := range rc.Status.Conditions {
		rs.Status.Conditions = append(rs.Status.Conditions, appsv1.ReplicaSetCondition{
			Type: appsv1.ReplicaSetConditionType(c.Type), Status: c.Status,
			LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message})
	}
	return rs
}
