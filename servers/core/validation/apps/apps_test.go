package apps

import (
	"strconv"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"

	vt "github.com/apichain/apichain/servers/core/validation/validationtest"
)

var kinds = map[string]vt.Kind{
	"Deployment":         vt.Of(ValidateDeployment, ValidateDeploymentUpdate),
	"ReplicaSet":         vt.Of(ValidateReplicaSet, ValidateReplicaSetUpdate),
	"StatefulSet":        vt.Of(ValidateStatefulSet, ValidateStatefulSetUpdate),
	"DaemonSet":          vt.Of(ValidateDaemonSet, ValidateDaemonSetUpdate, prepareDaemonSet),
	"ControllerRevision": vt.Of(ValidateControllerRevision, ValidateControllerRevisionUpdate),
}

// prepareDaemonSet sets the template generation as the registry does before validating.
func prepareDaemonSet(ds, old *appsv1.DaemonSet) {
	g := max(TemplateGeneration(ds), 1)
	if old != nil {
		g = TemplateGeneration(old)
		if !equality.Semantic.DeepEqual(ds.Spec.Template, old.Spec.Template) {
			g++
		}
	}
	if ds.Annotations == nil {
		ds.Annotations = map[string]string{}
	}
	ds.Annotations[appsv1.DeprecatedTemplateGeneration] = itoa(g)
}

func itoa(i int64) string { return strconv.FormatInt(i, 10) }

func TestCorpus(t *testing.T) { vt.Corpus(t, kinds, 55, nil) }

func TestAccepted(t *testing.T) {
	for file, kind := range map[string]string{"deployment.json": "Deployment", "replicaset.json": "ReplicaSet",
		"statefulset.json": "StatefulSet", "daemonset.json": "DaemonSet"} {
		vt.Accepted(t, file, kinds[kind])
	}
}

// template is a workload's pod template, labelled app: a.
const template = `template: {metadata: {labels: {app: a}}, spec: {containers: [{name: c, image: nginx}]}}`

func decode[T runtime.Object](t *testing.T, obj T, docs ...string) T {
	vt.Decode(t, obj, docs...)
	return obj
}

const deployment = `{metadata: {name: d, namespace: ns, resourceVersion: "1"}, spec: {selector: {matchLabels: {app: a}}, ` + template + `}}`

func TestDeployment(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"recreate", `{spec: {strategy: {type: Recreate, rollingUpdate: null}}}`, nil},
		{"bad name", `{metadata: {name: D}}`, []string{`metadata.name: Invalid value: "D": a lowercase RFC 1123 subdomain must consist of`}},
		{"negative replicas", `{spec: {replicas: -1}}`, []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"missing selector", `{spec: {selector: null}}`, []string{"spec.selector: Required value",
			"spec.template.metadata.labels: Invalid value: {\"app\":\"a\"}: `selector` does not match template `labels`"}},
		{"empty selector", `{spec: {selector: {matchLabels: null}}}`, []string{"spec.selector: Invalid value: {}: empty selector is invalid for deployment"}},
		{"selector does not match", `{spec: {template: {metadata: {labels: {app: b}}}}}`,
			[]string{"spec.template.metadata.labels: Invalid value: {\"app\":\"b\"}: `selector` does not match template `labels`"}},
		{"bad operator", `{spec: {selector: {matchLabels: null, matchExpressions: [{key: app, operator: Near}]}}}`, []string{
			`spec.selector.matchExpressions[0].operator: Invalid value: "Near": not a valid selector operator`,
			`spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Near"}]}: invalid label selector`}},
		{"restart policy", `{spec: {template: {spec: {restartPolicy: OnFailure}}}}`,
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`}},
		{"active deadline", `{spec: {template: {spec: {activeDeadlineSeconds: 5}}}}`,
			[]string{"spec.template.spec.activeDeadlineSeconds: Forbidden: activeDeadlineSeconds in ReplicaSet is not Supported"}},
		{"pod template", `{spec: {template: {spec: {containers: [{name: C, image: nginx}]}}}}`,
			[]string{`spec.template.spec.containers[0].name: Invalid value: "C": a lowercase RFC 1123 label`}},
		{"strategy type", `{spec: {strategy: {type: Blue, rollingUpdate: null}}}`,
			[]string{`spec.strategy: Unsupported value: {"Type":"Blue","RollingUpdate":null}: supported values: "Recreate", "RollingUpdate"`}},
		{"recreate with rolling update", `{spec: {strategy: {type: Recreate, rollingUpdate: {maxSurge: 1}}}}`,
			[]string{"spec.strategy.rollingUpdate: Forbidden: may not be specified when strategy `type` is 'Recreate'"}},
		{"nothing at a time", `{spec: {strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0%}}}}`,
			[]string{"spec.strategy.rollingUpdate.maxUnavailable: Invalid value: \"0%\": may not be 0 when `maxSurge` is 0"}},
		{"over 100%", `{spec: {strategy: {rollingUpdate: {maxUnavailable: 110%}}}}`,
			[]string{`spec.strategy.rollingUpdate.maxUnavailable: Invalid value: "110%": must not be greater than 100%`}},
		{"not a percentage", `{spec: {strategy: {rollingUpdate: {maxSurge: "20"}}}}`,
			[]string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: "20": a valid percent string must be a numeric string followed by an ending '%'`}},
		{"negative surge", `{spec: {strategy: {rollingUpdate: {maxSurge: -1}}}}`,
			[]string{`spec.strategy.rollingUpdate.maxSurge: Invalid value: -1: must be greater than or equal to 0`}},
		{"min ready", `{spec: {minReadySeconds: -1}}`, []string{"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"}},
		{"revision history", `{spec: {revisionHistoryLimit: -2}}`, []string{"spec.revisionHistoryLimit: Invalid value: -2: must be greater than or equal to 0"}},
		{"progress deadline", `{spec: {minReadySeconds: 700}}`, []string{"spec.progressDeadlineSeconds: Invalid value: 600: must be greater than minReadySeconds"}},
		{"rollback annotation", `{metadata: {annotations: {deprecated.deployment.rollback.to: "-1"}}}`,
			[]string{"spec.rollback.version: Invalid value: -1: must be greater than or equal to 0"}},
	}.Run(t, kinds["Deployment"], deployment, nil)

	old := decode(t, &appsv1.Deployment{}, deployment)
	vt.Cases{
		{"replicas", `{spec: {replicas: 3}}`, nil},
		{"selector", `{spec: {selector: {matchLabels: {tier: x}}, template: {metadata: {labels: {tier: x}}}}}`,
			[]string{`spec.selector: Invalid value: {"matchLabels":{"app":"a","tier":"x"}}: field is immutable`}},
	}.Run(t, kinds["Deployment"], deployment, old)

	status := func(doc string) *appsv1.Deployment { return decode(t, &appsv1.Deployment{}, deployment, doc) }
	for _, tc := range []struct {
		name     string
		obj, old *appsv1.Deployment
		want     []string
	}{
		{"valid", status(`{status: {replicas: 2, readyReplicas: 2, availableReplicas: 1}}`), old, nil},
		{"over replicas", status(`{status: {replicas: 1, readyReplicas: 2, availableReplicas: 2}}`), old, []string{
			"status.readyReplicas: Invalid value: 2: cannot be greater than status.replicas",
			"status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas"}},
		{"available over ready", status(`{status: {replicas: 2, readyReplicas: 1, availableReplicas: 2}}`), old,
			[]string{"status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas"}},
		{"negative", status(`{status: {observedGeneration: -1}}`), old,
			[]string{"status.observedGeneration: Invalid value: -1: must be greater than or equal to 0"}},
		{"collision count", status(`{status: {collisionCount: 1}}`), status(`{status: {collisionCount: 2}}`),
			[]string{"status.collisionCount: Invalid value: 1: cannot be decremented"}},
	} {
		vt.Expect(t, "status "+tc.name, ValidateDeploymentStatusUpdate(tc.obj, tc.old), tc.want...)
	}
}

const replicaSet = `{metadata: {name: rs, namespace: ns, resourceVersion: "1"}, spec: {selector: {matchLabels: {app: a}}, ` + template + `}}`

func TestReplicaSet(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"min ready", `{spec: {minReadySeconds: -1}}`, []string{"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"}},
		{"replicas", `{spec: {replicas: -1}}`, []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"empty selector", `{spec: {selector: {matchLabels: null}}}`, []string{"spec.selector: Invalid value: {}: empty selector is invalid for deployment"}},
		{"selector label", `{spec: {selector: {matchLabels: {app: -a-}}}}`, []string{`spec.selector.matchLabels: Invalid value: "-a-": a valid label must be`,
			`spec.selector: Invalid value: {"matchLabels":{"app":"-a-"}}: invalid label selector`}},
	}.Run(t, kinds["ReplicaSet"], replicaSet, nil)

	old := decode(t, &appsv1.ReplicaSet{}, replicaSet)
	vt.Cases{
		{"replicas", `{spec: {replicas: 5}}`, nil},
		{"selector", `{spec: {selector: {matchLabels: null, matchExpressions: [{key: app, operator: Exists}]}}}`,
			[]string{`spec.selector: Invalid value: {"matchExpressions":[{"key":"app","operator":"Exists"}]}: field is immutable`}},
	}.Run(t, kinds["ReplicaSet"], replicaSet, old)

	rs := decode(t, &appsv1.ReplicaSet{}, replicaSet, `{status: {replicas: 2, fullyLabeledReplicas: 3, readyReplicas: 1, availableReplicas: 2, terminatingReplicas: -1}}`)
	vt.Expect(t, "status", ValidateReplicaSetStatusUpdate(rs, old),
		"status.terminatingReplicas: Invalid value: -1: must be greater than or equal to 0",
		"status.fullyLabeledReplicas: Invalid value: 3: cannot be greater than status.replicas",
		"status.availableReplicas: Invalid value: 2: cannot be greater than readyReplicas")
}

const statefulSetDoc = `{metadata: {name: s, namespace: ns, resourceVersion: "1"}, spec: {serviceName: s, selector: {matchLabels: {app: a}}, ` + template + `}}`

func TestStatefulSet(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"claim templates", `{spec: {volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}],
			template: {spec: {containers: [{name: c, image: nginx, volumeMounts: [{name: data, mountPath: /data}]}]}}}}`, nil},
		{"name with a dot", `{metadata: {name: a.b}}`, []string{`metadata.name: Invalid value: "a.b": must not contain dots`}},
		{"pod management", `{spec: {podManagementPolicy: Sometimes}}`, []string{`spec.podManagementPolicy: Invalid value: "Sometimes": must be 'OrderedReady' or 'Parallel'`}},
		{"strategy", `{spec: {updateStrategy: {type: Recreate}}}`,
			[]string{`spec.updateStrategy: Invalid value: {"Type":"Recreate","RollingUpdate":null}: must be 'RollingUpdate' or 'OnDelete'`}},
		{"on delete with rolling update", `{spec: {updateStrategy: {type: OnDelete, rollingUpdate: {partition: 1}}}}`,
			[]string{`spec.updateStrategy.rollingUpdate: Invalid value: {"Partition":1,"MaxUnavailable":null}: only allowed for updateStrategy 'RollingUpdate'`}},
		{"max unavailable 0", `{spec: {updateStrategy: {rollingUpdate: {maxUnavailable: 0}}}}`,
			[]string{"spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: 0: cannot be 0"}},
		{"partition", `{spec: {updateStrategy: {rollingUpdate: {partition: -1}}}}`,
			[]string{"spec.updateStrategy.rollingUpdate.partition: Invalid value: -1: must be greater than or equal to 0"}},
		{"retention", `{spec: {persistentVolumeClaimRetentionPolicy: {whenDeleted: Keep}}}`,
			[]string{`spec.persistentVolumeClaimRetentionPolicy.whenDeleted: Unsupported value: "Keep": supported values: "Retain", "Delete"`}},
		{"replicas", `{spec: {replicas: -1}}`, []string{"spec.replicas: Invalid value: -1: must be greater than or equal to 0"}},
		{"ordinals", `{spec: {ordinals: {start: -1}}}`, []string{"spec.ordinals.start: Invalid value: -1: must be greater than or equal to 0"}},
		{"service name", `{spec: {serviceName: Bad_Name}}`, []string{`spec.serviceName: Invalid value: "Bad_Name": a lowercase RFC 1123 label must consist of`}},
		{"missing selector", `{spec: {selector: null}}`, []string{"spec.selector: Required value",
			"spec.template.metadata.labels: Invalid value: {\"app\":\"a\"}: `selector` does not match template `labels`"}},
		{"empty selector", `{spec: {selector: {matchLabels: null}}}`, []string{"spec.selector: Invalid value: {}: empty selector is invalid for statefulset"}},
		{"selector does not match", `{spec: {template: {metadata: {labels: {app: b}}}}}`,
			[]string{"spec.template.metadata.labels: Invalid value: {\"app\":\"b\"}: `selector` does not match template `labels`"}},
		{"claim template", `{spec: {volumeClaimTemplates: [{metadata: {name: data}}]}}`, []string{
			"spec.volumeClaimTemplates[0].spec.accessModes: Required value: at least 1 access mode is required",
			"spec.volumeClaimTemplates[0].spec.resources[storage]: Required value"}},
		{"restart policy", `{spec: {template: {spec: {restartPolicy: Never}}}}`,
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "Never": supported values: "Always"`}},
	}.Run(t, kinds["StatefulSet"], statefulSetDoc, nil)

	old := decode(t, &appsv1.StatefulSet{}, statefulSetDoc)
	vt.Cases{
		{"replicas", `{spec: {replicas: 3}}`, nil},
		{"identity", `{spec: {serviceName: other, podManagementPolicy: Parallel}}`, []string{
			`spec.serviceName: Invalid value: "other": field is immutable`,
			`spec.podManagementPolicy: Invalid value: "Parallel": field is immutable`}},
		{"selector", `{spec: {selector: {matchLabels: {tier: x}}, template: {metadata: {labels: {tier: x}}}}}`,
			[]string{`spec.selector: Invalid value: {"matchLabels":{"app":"a","tier":"x"}}: field is immutable`}},
		{"claim templates", `{spec: {volumeClaimTemplates: [{metadata: {name: data}}]}}`,
			[]string{`spec.volumeClaimTemplates: Invalid value: [{"name":"data","Spec":{"AccessModes":null`}},
	}.Run(t, kinds["StatefulSet"], statefulSetDoc, old)

	ss := decode(t, &appsv1.StatefulSet{}, statefulSetDoc, `{status: {replicas: 1, readyReplicas: 1, availableReplicas: 2, observedGeneration: -1}}`)
	vt.Expect(t, "status", ValidateStatefulSetStatusUpdate(ss, old),
		"status.observedGeneration: Invalid value: -1: must be greater than or equal to 0",
		"status.availableReplicas: Invalid value: 2: cannot be greater than status.replicas",
		"status.availableReplicas: Invalid value: 2: cannot be greater than status.readyReplicas")
}

const daemonSet = `{metadata: {name: ds, namespace: ns, resourceVersion: "1", annotations: {deprecated.daemonset.template.generation: "1"}},
	spec: {selector: {matchLabels: {app: a}}, ` + template + `}}`

func TestDaemonSet(t *testing.T) {
	vt.Cases{
		{"valid", `{}`, nil},
		{"on delete", `{spec: {updateStrategy: {type: OnDelete, rollingUpdate: null}}}`, nil},
		{"surge instead", `{spec: {updateStrategy: {rollingUpdate: {maxUnavailable: 0, maxSurge: 10%}}}}`, nil},
		{"surge and unavailable", `{spec: {updateStrategy: {rollingUpdate: {maxSurge: 10%}}}}`,
			[]string{`spec.updateStrategy.rollingUpdate.maxSurge: Invalid value: "10%": may not be set when maxUnavailable is non-zero`}},
		{"neither", `{spec: {updateStrategy: {rollingUpdate: {maxUnavailable: 0}}}}`,
			[]string{"spec.updateStrategy.rollingUpdate.maxUnavailable: Required value: cannot be 0 when maxSurge is 0"}},
		{"over 100%", `{spec: {updateStrategy: {rollingUpdate: {maxUnavailable: 101%}}}}`,
			[]string{`spec.updateStrategy.rollingUpdate.maxUnavailable: Invalid value: "101%": must not be greater than 100%`}},
		{"strategy type", `{spec: {updateStrategy: {type: Sometimes}}}`,
			[]string{`spec.updateStrategy: Unsupported value: {"Type":"Sometimes","RollingUpdate":null}: supported values: "RollingUpdate", "OnDelete"`}},
		{"selector does not match", `{spec: {template: {metadata: {labels: null}}}}`,
			[]string{"spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`"}},
		{"empty selector", `{spec: {selector: {matchLabels: null}}}`, []string{"spec.selector: Invalid value: {}: empty selector is invalid for daemonset"}},
		{"restart policy", `{spec: {template: {spec: {restartPolicy: OnFailure}}}}`,
			[]string{`spec.template.spec.restartPolicy: Unsupported value: "OnFailure": supported values: "Always"`}},
		{"min ready", `{spec: {minReadySeconds: -1}}`, []string{"spec.minReadySeconds: Invalid value: -1: must be greater than or equal to 0"}},
	}.Run(t, kinds["DaemonSet"], daemonSet, nil)

	old := decode(t, &appsv1.DaemonSet{}, daemonSet)
	image := `{spec: {template: {spec: {containers: [{name: c, image: "nginx:2"}]}}}}`
	generation := func(g string) string {
		return `{metadata: {annotations: {deprecated.daemonset.template.generation: "` + g + `"}}}`
	}
	for _, tc := range []struct {
		name string
		docs []string
		want []string
	}{
		{"template and generation", []string{image, generation("2")}, nil},
		{"template only", []string{image}, []string{"spec.templateGeneration: Invalid value: 1: must be incremented upon template update"}},
		{"generation only", []string{generation("3")}, []string{"spec.templateGeneration: Invalid value: 3: must not be incremented without template update"}},
		{"generation down", []string{image, generation("0")}, []string{"spec.templateGeneration: Invalid value: 0: must not be decremented"}},
		{"selector", []string{`{spec: {selector: {matchLabels: {tier: x}}}}`}, []string{
			`spec.selector: Invalid value: {"matchLabels":{"app":"a","tier":"x"}}: field is immutable`,
			"spec.template.metadata.labels: Invalid value: {\"app\":\"a\"}: `selector` does not match template `labels`"}},
	} {
		ds := decode(t, &appsv1.DaemonSet{}, append([]string{daemonSet}, tc.docs...)...)
		vt.Expect(t, "update "+tc.name, ValidateDaemonSetUpdate(ds, old), tc.want...)
	}

	ds := decode(t, &appsv1.DaemonSet{}, daemonSet, `{status: {numberReady: -1, collisionCount: 0}}`)
	withCount := decode(t, &appsv1.DaemonSet{}, daemonSet, `{status: {collisionCount: 1}}`)
	vt.Expect(t, "status", ValidateDaemonSetStatusUpdate(ds, withCount),
		"status.numberReady: Invalid value: -1: must be greater than or equal to 0",
		"status.collisionCount: Invalid value: 0: cannot be decremented")
}

func TestControllerRevision(t *testing.T) {
	cr := func(data string, revision int64) *appsv1.ControllerRevision {
		return decode(t, &appsv1.ControllerRevision{}, `{metadata: {name: cr, namespace: ns, resourceVersion: "1"}}`,
			`{revision: `+itoa(revision)+`}`, `{data: `+data+`}`)
	}
	for _, tc := range []struct {
		name string
		obj  *appsv1.ControllerRevision
		want []string
	}{
		{"valid", cr(`{a: b}`, 1), nil},
		{"negative revision", cr(`{}`, -1), []string{"revision: Invalid value: -1: must be greater than or equal to 0"}},
		{"not an object", cr(`[1]`, 1), []string{"data: Required value: data must be a valid JSON object"}},
		{"missing", cr(`null`, 1), []string{"data: Required value: data is mandatory"}},
	} {
		vt.Expect(t, tc.name, ValidateControllerRevision(tc.obj), tc.want...)
	}
	broken := cr(`{}`, 1)
	broken.Data.Raw = []byte(`{`)
	vt.Expect(t, "not JSON", ValidateControllerRevision(broken), `data: Invalid value: "<value omitted>": error parsing data: unexpected end of JSON input`)
	vt.Expect(t, "data immutable", ValidateControllerRevisionUpdate(cr(`{a: c}`, 2), cr(`{a: b}`, 1)), `data: Invalid value: {"a":"c"}: field is immutable`)
}
