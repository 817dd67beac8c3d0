package apiservice

import (
	"strings"

	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	"k8s.io/utils/ptr"
)

// Every object written carries these labels: ManagedByLabel says it is ours (remove takes away
// only what carries it), NameLabel names the APIService it is for (ServiceName of it).
const (
	ManagedByLabel = "app.kubernetes.io/managed-by"
	ManagedBy      = "chain-apiservice"
	NameLabel      = "apichain.io/apiservice"
)

// The priorities of the APIServices registered: a CRD group's minimum, far below every built-in
// group's (15800 and up), so that a resource name a built-in group uses keeps meaning the
// built-in one in kubectl.
const (
	groupPriorityMinimum = 1000
	versionPriority      = 100
)

// Ref names one object written: its resource, namespace and name.
type Ref struct {
	Resource        schema.GroupVersionResource
	Kind            string
	Namespace, Name string
}

// String names the object as kubectl prints it: serviceaccount/NAME,
// apiservice.apiregistration.k8s.io/NAME.
func (r Ref) String() string {
	s := strings.ToLower(r.Kind)
	if r.Resource.Group != "" {
		s += "." + r.Resource.Group
	}
	return s + "/" + r.Name
}

var (
	serviceAccounts     = Ref{Resource: corev1.SchemeGroupVersion.WithResource("serviceaccounts"), Kind: "ServiceAccount", Namespace: Namespace}
	clusterRoles        = Ref{Resource: rbacv1.SchemeGroupVersion.WithResource("clusterroles"), Kind: "ClusterRole"}
	clusterRoleBindings = Ref{Resource: rbacv1.SchemeGroupVersion.WithResource("clusterrolebindings"), Kind: "ClusterRoleBinding"}
	roleBindings        = Ref{Resource: rbacv1.SchemeGroupVersion.WithResource("rolebindings"), Kind: "RoleBinding", Namespace: Namespace}
	services            = Ref{Resource: corev1.SchemeGroupVersion.WithResource("services"), Kind: "Service", Namespace: Namespace}
	endpointSlices      = Ref{Resource: discoveryv1.SchemeGroupVersion.WithResource("endpointslices"), Kind: "EndpointSlice", Namespace: Namespace}
	apiServices         = Ref{Resource: apiregistrationv1.SchemeGroupVersion.WithResource("apiservices"), Kind: "APIService"}
)

func (r Ref) named(name string) Ref { r.Name = name; return r }

// The objects of one APIService, by name, in the order they are written: the identity first
// (so that the server can start before it is routed to), the APIService last (so that it never
// names a Service that is not there). They are taken away in the opposite order.
type objectNames struct {
	serviceAccount, clusterRole, clusterRoleBinding, authDelegator, authReader Ref
	service, endpointSlice, apiService                                         Ref
}

func namesFor(apiService string) objectNames {
	svc := ServiceName(apiService)
	// RBAC objects are named as the chain names its own (apichain:...), after the APIService.
	rbacName := "apichain:apiservice:" + apiService
	return objectNames{
		serviceAccount:     serviceAccounts.named(svc),
		clusterRole:        clusterRoles.named(rbacName),
		clusterRoleBinding: clusterRoleBindings.named(rbacName),
		authDelegator:      clusterRoleBindings.named(rbacName + ":auth-delegator"),
		authReader:         roleBindings.named(rbacName + ":authentication-reader"),
		service:            services.named(svc),
		endpointSlice:      endpointSlices.named(svc),
		apiService:         apiServices.named(apiService),
	}
}

func (n objectNames) identity() []Ref {
	return []Ref{n.serviceAccount, n.clusterRole, n.clusterRoleBinding, n.authDelegator, n.authReader}
}

func (n objectNames) registration() []Ref { return []Ref{n.service, n.endpointSlice, n.apiService} }

// object is a Ref and what to create there.
type object struct {
	Ref
	obj runtime.Object
}

func meta(r Ref, apiService string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Name: r.Name, Namespace: r.Namespace, Labels: map[string]string{
		ManagedByLabel: ManagedBy,
		NameLabel:      ServiceName(apiService),
	}}
}

func typeMeta(r Ref) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: r.Resource.GroupVersion().String(), Kind: r.Kind}
}

// identityObjects: a ServiceAccount, bound as sample-apiserver's end-to-end test binds its
// server's: to system:auth-delegator (TokenReviews and SubjectAccessReviews, its delegated
// authentication and authorization), to the Role extension-apiserver-authentication-reader in
// kube-system (the ConfigMap of the client and front-proxy CAs), and to a ClusterRole of the
// reads k8s.io/apiserver's RecommendedOptions make: namespaces (the NamespaceLifecycle admission
// plugin), the admission webhook and policy configurations (its admission plugins), FlowSchemas
// and PriorityLevelConfigurations (its API Priority and Fairness).
func identityObjects(apiService string) []object {
	n := namesFor(apiService)
	subject := []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: n.serviceAccount.Namespace, Name: n.serviceAccount.Name}}
	read := []string{"get", "list", "watch"}
	binding := func(r Ref, kind, role string) runtime.Object {
		roleRef := rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: role}
		if r.Kind == "RoleBinding" {
			return &rbacv1.RoleBinding{TypeMeta: typeMeta(r), ObjectMeta: meta(r, apiService), RoleRef: roleRef, Subjects: subject}
		}
		return &rbacv1.ClusterRoleBinding{TypeMeta: typeMeta(r), ObjectMeta: meta(r, apiService), RoleRef: roleRef, Subjects: subject}
	}
	return []object{
		{n.serviceAccount, &corev1.ServiceAccount{TypeMeta: typeMeta(n.serviceAccount), ObjectMeta: meta(n.serviceAccount, apiService)}},
		{n.clusterRole, &rbacv1.ClusterRole{TypeMeta: typeMeta(n.clusterRole), ObjectMeta: meta(n.clusterRole, apiService), Rules: []rbacv1.PolicyRule{
			{APIGroups: []string{""}, Resources: []string{"namespaces"}, Verbs: read},
			{APIGroups: []string{"admissionregistration.k8s.io"}, Resources: []string{"*"}, Verbs: read},
			{APIGroups: []string{"flowcontrol.apiserver.k8s.io"}, Resources: []string{"flowschemas", "prioritylevelconfigurations"}, Verbs: read},
		}}},
		{n.clusterRoleBinding, binding(n.clusterRoleBinding, "ClusterRole", n.clusterRole.Name)},
		{n.authDelegator, binding(n.authDelegator, "ClusterRole", "system:auth-delegator")},
		{n.authReader, binding(n.authReader, "Role", "extension-apiserver-authentication-reader")},
	}
}

// registrationObjects: a Service without a selector, the EndpointSlice that gives it the
// server's address and port, and the APIService that routes the group version to the Service.
// s has been validated.
func registrationObjects(s Spec) []object {
	n := namesFor(s.Name)
	addressType, address, port, _ := s.endpoint()
	svcMeta, sliceMeta := meta(n.service, s.Name), meta(n.endpointSlice, s.Name)
	sliceMeta.Labels[discoveryv1.LabelServiceName] = n.service.Name
	// Not the EndpointSlice controller's: it leaves the slice alone.
	sliceMeta.Labels[discoveryv1.LabelManagedBy] = ManagedBy
	const portName = "https"
	return []object{
		{n.service, &corev1.Service{TypeMeta: typeMeta(n.service), ObjectMeta: svcMeta, Spec: corev1.ServiceSpec{
			Type:  corev1.ServiceTypeClusterIP,
			Ports: []corev1.ServicePort{{Name: portName, Protocol: corev1.ProtocolTCP, Port: servicePort, TargetPort: intstr.FromInt32(port)}},
		}}},
		{n.endpointSlice, &discoveryv1.EndpointSlice{TypeMeta: typeMeta(n.endpointSlice), ObjectMeta: sliceMeta,
			AddressType: addressType,
			Endpoints:   []discoveryv1.Endpoint{{Addresses: []string{address}, Conditions: discoveryv1.EndpointConditions{Ready: ptr.To(true)}}},
			Ports:       []discoveryv1.EndpointPort{{Name: ptr.To(portName), Protocol: ptr.To(corev1.ProtocolTCP), Port: ptr.To(port)}},
		}},
		{n.apiService, &apiregistrationv1.APIService{TypeMeta: typeMeta(n.apiService), ObjectMeta: meta(n.apiService, s.Name), Spec: apiregistrationv1.APIServiceSpec{
			Service:               &apiregistrationv1.ServiceReference{Namespace: n.service.Namespace, Name: n.service.Name, Port: ptr.To[int32](servicePort)},
			Group:                 s.GroupVersion.Group,
			Version:               s.GroupVersion.Version,
			CABundle:              s.CABundle,
			InsecureSkipTLSVerify: s.InsecureSkipTLSVerify,
			GroupPriorityMinimum:  groupPriorityMinimum,
			VersionPriority:       versionPriority,
		}}},
	}
}
