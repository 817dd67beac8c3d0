package validation

// Table tests for apps/v1 validation. Cases and messages follow kubernetes v1.37.2
// pkg/apis/apps/validation/validation_test.go (TestValidateDeployment*, TestValidateReplicaSet*,
// TestValidateStatefulSet*, TestValidateDaemonSet*, TestValidateControllerRevision*), rendered
// in full the way kube-apiserver reports them.

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	v1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

const appsTemplate = `
    metadata: {labels: {app: a}}
    spec: {containers: [{name: c, image: nginx}]}`

func deploymentWith(t *testing.T, mutate func(*appsv1.Deployment)) *appsv1.Deployment {
	d := &appsv1.Deployment{}
	decodeDefaulted(t, `
metadata: {name: d, namespace: default, resourceVersion: "1"}
spec:
  selector: {matchLabels: {app: a}}
  template:`+appsTemplate, d)
	if mutate != nil {
		mutate(d)
	}
	return d
}

func TestValidateDeployment(t *testing.T) {
	cases := []struct {
		name string
		obj  *appsv1.Deployment
		want []string
	}{
		{"valid", deploymentWith(t, nil), nil},
		{"selector does not match", deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.Template.Labels = map[string]string{"app": "b"} }),
			[]string{"spec.template.metadata.labels: Invalid value: {\"app\":\"b\"}: `selector` does not match template `labels`"}},
		{"empty selector", deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.Selector = &metav1.LabelSelector{} }),
			[]string{"spec.selector: Invalid value: {}: empty selector is invalid for deployment"}},
		{"missing selector", deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.Selector = nil }),
			[]string{"spec.selector: Required value", "spec.template.metadata.labels: Invalid value: {\"app\":\"a\"}: `selector` does not match template `labels`"}},
		{"negative replicas", deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](-1) }),
			[]string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"restart policy", deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.Template.Spec.RestartPolicy = v1.RestartPolicyOnFailure }),
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`}},
		{"active deadline", deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.Template.Spec.ActiveDeadlineSeconds = ptr.To[int64](5) }),
			[]string{"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"}},
		{"strategy type", deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.Strategy.Type = "Blue" }),
			[]string{`spec.strategy: Unsupported value: {"Type":"Blue","RollingUpdate":{"MaxUnavailable":"25%","MaxSurge":"25%"}}: supported values: "Recreate", "RollingUpdate"`}},
		{"recreate with rolling update", deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.Strategy.Type = appsv1.RecreateDeploymentStrategyType }),
			[]string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"}},
		{"surge and unavailable 0", deploymentWith(t, func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromInt32(0))
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromString("0%"))
		}), []string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 when `maxSurge` is 0"}},
		{"unavailable over 100%", deploymentWith(t, func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromString("110%"))
		}), []string{`spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "110%": must not be greater than 100%`}},
		{"bad percent", deploymentWith(t, func(d *appsv1.Deployment) {
			d.Spec.Strategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("20"))
		}), []string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: "20": a valid percent string must be a numeric string followed by an ending '%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')`}},
		{"negative revision history", deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.RevisionHistoryLimit = ptr.To[int32](-2) }),
			[]string{"spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0"}},
		{"progress deadline", deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.MinReadySeconds = 700 }),
			[]string{"spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"}},
		{"rollback annotation", deploymentWith(t, func(d *appsv1.Deployment) {
			d.Annotations = map[string]string{appsv1.DeprecatedRollbackTo: "-1"}
		}), []string{"spec.rollback.version: Invalid value: -1: must be greater than or equal to 0"}},
		{"bad name", deploymentWith(t, func(d *appsv1.Deployment) { d.Name = "D" }),
			[]string{`metadata.name: Invalid value: "D": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateDeployment(tc.obj), tc.want)
	}

	old := deploymentWith(t, nil)
	expectErrors(t, "update selector", ValidateDeploymentUpdate(deploymentWith(t, func(d *appsv1.Deployment) {
		d.Spec.Selector.MatchLabels["tier"] = "x"
		d.Spec.Template.Labels["tier"] = "x"
	}), old), []string{`spec.selector: Invalid value: {"matchLabels":{"app":"a","tier":"x"}}: field is immutable`})
	expectErrors(t, "update replicas", ValidateDeploymentUpdate(deploymentWith(t, func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](3) }), old), nil)

	withStatus := func(s appsv1.DeploymentStatus) *appsv1.Deployment {
		return deploymentWith(t, func(d *appsv1.Deployment) { d.Status = s })
	}
	expectErrors(t, "status ready over replicas", ValidateDeploymentStatusUpdate(withStatus(appsv1.DeploymentStatus{Replicas: 1, ReadyReplicas: 2, AvailableReplicas: 2}), old), []string{
		"status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
		"status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas",
	})
	expectErrors(t, "status collision count decremented", ValidateDeploymentStatusUpdate(withStatus(appsv1.DeploymentStatus{CollisionCount: ptr.To[int32](1)}),
		withStatus(appsv1.DeploymentStatus{CollisionCount: ptr.To[int32](2)})), []string{"status.collisionCount: Invalid value: 1: cannot be decremented"})
	expectErrors(t, "status negative", ValidateDeploymentStatusUpdate(withStatus(appsv1.DeploymentStatus{ObservedGeneration: -1}), old),
		[]string{"status.observedGeneration: Invalid value: -1: must be greater than or equal to 0"})
}

func replicaSetWith(t *testing.T, mutate func(*appsv1.ReplicaSet)) *appsv1.ReplicaSet {
	rs := &appsv1.ReplicaSet{}
	decodeDefaulted(t, `
metadata: {name: rs, namespace: default, resourceVersion: "1"}
spec:
  selector: {matchLabels: {app: a}}
  template:`+appsTemplate, rs)
	if mutate != nil {
		mutate(rs)
	}
	return rs
}

func TestValidateReplicaSet(t *testing.T) {
	expectErrors(t, "valid", ValidateReplicaSet(replicaSetWith(t, nil)), nil)
	expectErrors(t, "negative min ready", ValidateReplicaSet(replicaSetWith(t, func(rs *appsv1.ReplicaSet) { rs.Spec.MinReadySeconds = -1 })),
		[]string{"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"})
	expectErrors(t, "empty selector", ValidateReplicaSet(replicaSetWith(t, func(rs *appsv1.ReplicaSet) { rs.Spec.Selector = &metav1.LabelSelector{} })),
		[]string{"spec.selector: Invalid value: {}: empty selector is invalid for deployment"})
	expectErrors(t, "bad selector", ValidateReplicaSet(replicaSetWith(t, func(rs *appsv1.ReplicaSet) {
		rs.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: "Near"}}}
	})), []string{
		`spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`,
		`spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Near"}]}: invalid label selector`,
	})
	old := replicaSetWith(t, nil)
	expectErrors(t, "selector immutable", ValidateReplicaSetUpdate(replicaSetWith(t, func(rs *appsv1.ReplicaSet) {
		rs.Spec.Selector = &metav1.LabelSelector{MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "app", Operator: metav1.LabelSelectorOpExists}}}
	}), old), []string{`spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Exists"}]}: field is immutable`})
	expectErrors(t, "status", ValidateReplicaSetStatusUpdate(replicaSetWith(t, func(rs *appsv1.ReplicaSet) {
		rs.Status = appsv1.ReplicaSetStatus{Replicas: 2, FullyLabeledReplicas: 3, ReadyReplicas: 1, AvailableReplicas: 2}
	}), old), []string{
		"status.fullyLabeledReplicas: Invalid value: 3: cannot be greater than status.replicas",
		"status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas",
	})
}

func statefulSetWith(t *testing.T, mutate func(*appsv1.StatefulSet)) *appsv1.StatefulSet {
	s := &appsv1.StatefulSet{}
	decodeDefaulted(t, `
metadata: {name: s, namespace: default, resourceVersion: "1"}
spec:
  serviceName: s
  selector: {matchLabels: {app: a}}
  template:`+appsTemplate, s)
	if mutate != nil {
		mutate(s)
	}
	return s
}

func TestValidateStatefulSet(t *testing.T) {
	cases := []struct {
		name string
		obj  *appsv1.StatefulSet
		want []string
	}{
		{"valid", statefulSetWith(t, nil), nil},
		{"name with a dot", statefulSetWith(t, func(s *appsv1.StatefulSet) { s.Name = "a.b" }),
			[]string{`metadata.name: Invalid value: "a.b": must not contain dots`}},
		{"pod management policy", statefulSetWith(t, func(s *appsv1.StatefulSet) { s.Spec.PodManagementPolicy = "Sometimes" }),
			[]string{`spec.podManagementPolicy: Invalid value: "Sometimes": must be 'OrderedReady' or 'Parallel'`}},
		{"update strategy", statefulSetWith(t, func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.Type = "Recreate" }),
			[]string{`spec.updateStrategy: Invalid value: {"Type":"Recreate","RollingUpdate":{"Partition":0,"MaxUnavailable":1}}: must be 'RollingUpdate' or 'OnDelete'`}},
		{"on delete with rolling update", statefulSetWith(t, func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.Type = appsv1.OnDeleteStatefulSetStrategyType }),
			[]string{`spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":0,"MaxUnavailable":1}: only allowed for updateStrategy 'RollingUpdate'`}},
		{"max unavailable 0", statefulSetWith(t, func(s *appsv1.StatefulSet) {
			s.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(0))
		}), []string{"spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0"}},
		{"negative partition", statefulSetWith(t, func(s *appsv1.StatefulSet) { s.Spec.UpdateStrategy.RollingUpdate.Partition = ptr.To[int32](-1) }),
			[]string{"spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"}},
		{"service name", statefulSetWith(t, func(s *appsv1.StatefulSet) { s.Spec.ServiceName = "Bad_Name" }),
			[]string{`spec.serviceName: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`}},
		{"retention policy", statefulSetWith(t, func(s *appsv1.StatefulSet) { s.Spec.PersistentVolumeClaimRetentionPolicy.WhenDeleted = "Keep" }),
			[]string{`spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"`}},
		{"empty selector", statefulSetWith(t, func(s *appsv1.StatefulSet) { s.Spec.Selector = &metav1.LabelSelector{} }),
			[]string{"spec.selector: Invalid value: {}: empty selector is invalid for statefulset"}},
		{"negative ordinals start", statefulSetWith(t, func(s *appsv1.StatefulSet) { s.Spec.Ordinals = &appsv1.StatefulSetOrdinals{Start: -1} }),
			[]string{"spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"}},
		{"claim template without access modes", statefulSetWith(t, func(s *appsv1.StatefulSet) {
			s.Spec.VolumeClaimTemplates = []v1.PersistentVolumeClaim{{ObjectMeta: metav1.ObjectMeta{Name: "data"}}}
		}), []string{"spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode is required", "spec.volumeClaimTemplates[0].spec.resources[storage]: Required value"}},
	}
	for _, tc := range cases {
		expectErrors(t, tc.name, ValidateStatefulSet(tc.obj), tc.want)
	}

	old := statefulSetWith(t, nil)
	expectErrors(t, "replicas may change", ValidateStatefulSetUpdate(statefulSetWith(t, func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](3) }), old), nil)
	expectErrors(t, "immutable fields", ValidateStatefulSetUpdate(statefulSetWith(t, func(s *appsv1.StatefulSet) {
		s.Spec.ServiceName = "other"
		s.Spec.PodManagementPolicy = appsv1.ParallelPodManagement
	}), old), []string{
		`spec.serviceName: Invalid value: "other": field is immutable`,
		`spec.podManagementPolicy: Invalid value: "Parallel": field is immutable`,
	})
	expectErrors(t, "status", ValidateStatefulSetStatusUpdate(statefulSetWith(t, func(s *appsv1.StatefulSet) {
		s.Status = appsv1.StatefulSetStatus{Replicas: 1, ReadyReplicas: 1, AvailableReplicas: 2, ObservedGeneration: -1}
	}), old), []string{
		"status.observedGeneration: Invalid value: -1: must be greater than or equal to 0",
		"status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas",
		"status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas",
	})
}

func daemonSetWith(t *testing.T, mutate func(*appsv1.DaemonSet)) *appsv1.DaemonSet {
	ds := &appsv1.DaemonSet{}
	decodeDefaulted(t, `
metadata: {name: ds, namespace: default, resourceVersion: "1", annotations: {deprecated.daemonset.template.generation: "1"}}
spec:
  selector: {matchLabels: {app: a}}
  template:`+appsTemplate, ds)
	if mutate != nil {
		mutate(ds)
	}
	return ds
}

func TestValidateDaemonSet(t *testing.T) {
	expectErrors(t, "valid", ValidateDaemonSet(daemonSetWith(t, nil)), nil)
	expectErrors(t, "both surge and unavailable", ValidateDaemonSet(daemonSetWith(t, func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy.RollingUpdate.MaxSurge = ptr.To(intstr.FromString("10%"))
	})), []string{`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero`})
	expectErrors(t, "neither surge nor unavailable", ValidateDaemonSet(daemonSetWith(t, func(ds *appsv1.DaemonSet) {
		ds.Spec.UpdateStrategy.RollingUpdate.MaxUnavailable = ptr.To(intstr.FromInt32(0))
	})), []string{"spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"})
	expectErrors(t, "strategy type", ValidateDaemonSet(daemonSetWith(t, func(ds *appsv1.DaemonSet) { ds.Spec.UpdateStrategy.Type = "Sometimes" })),
		[]string{`spec.updateStrategy: Unsupported value: {"Type":"Sometimes","RollingUpdate":{"MaxUnavailable":1,"MaxSurge":0}}: supported values: "RollingUpdate", "OnDelete"`})
	expectErrors(t, "selector mismatch", ValidateDaemonSet(daemonSetWith(t, func(ds *appsv1.DaemonSet) { ds.Spec.Template.Labels = nil })),
		[]string{"spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`"})

	old := daemonSetWith(t, nil)
	templateChanged := func(generation string) *appsv1.DaemonSet {
		return daemonSetWith(t, func(ds *appsv1.DaemonSet) {
			ds.Spec.Template.Spec.Containers[0].Image = "nginx:2"
			ds.Annotations[appsv1.DeprecatedTemplateGeneration] = generation
		})
	}
	expectErrors(t, "template change with generation", ValidateDaemonSetUpdate(templateChanged("2"), old), nil)
	expectErrors(t, "template change without generation", ValidateDaemonSetUpdate(templateChanged("1"), old),
		[]string{"spec.templateGeneration: Invalid value: 1: must be incremented upon template update"})
	expectErrors(t, "generation without template change", ValidateDaemonSetUpdate(daemonSetWith(t, func(ds *appsv1.DaemonSet) {
		ds.Annotations[appsv1.DeprecatedTemplateGeneration] = "3"
	}), old), []string{"spec.templateGeneration: Invalid value: 3: must not be incremented without template update"})
	expectErrors(t, "generation decremented", ValidateDaemonSetUpdate(templateChanged("0"), old),
		[]string{"spec.templateGeneration: Invalid value: 0: must not be decremented"})
	expectErrors(t, "status", ValidateDaemonSetStatusUpdate(daemonSetWith(t, func(ds *appsv1.DaemonSet) { ds.Status.NumberReady = -1 }), old),
		[]string{"status.numberReady: Invalid value: -1: must be greater than or equal to 0"})
}

func TestValidateControllerRevision(t *testing.T) {
	cr := func(data string, revision int64) *appsv1.ControllerRevision {
		return &appsv1.ControllerRevision{ObjectMeta: metav1.ObjectMeta{Name: "cr", Namespace: "default", ResourceVersion: "1"}, Revision: revision, Data: runtime.RawExtension{Raw: []byte(data)}}
	}
	expectErrors(t, "valid", ValidateControllerRevisionCreate(cr(`{"a":"b"}`, 1)), nil)
	expectErrors(t, "negative revision", ValidateControllerRevisionCreate(cr(`{}`, -1)), []string{"revision: Invalid value: -1: must be greater than or equal to 0"})
	expectErrors(t, "not an object", ValidateControllerRevisionCreate(cr(`[1]`, 1)), []string{"data: Required value: data must be a valid JSON object"})
	expectErrors(t, "null", ValidateControllerRevisionCreate(cr(`null`, 1)), []string{"data: Required value: data is mandatory"})
	expectErrors(t, "invalid JSON", ValidateControllerRevisionCreate(cr(`{`, 1)), []string{`data: Invalid value: "<value omitted>": error parsing data: unexpected end of JSON input`})
	expectErrors(t, "data immutable", ValidateControllerRevisionUpdate(cr(`{"a":"c"}`, 1), cr(`{"a":"b"}`, 1)), []string{`data: Invalid value: {"a":"c"}: field is immutable`})
}
