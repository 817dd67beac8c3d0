package core

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strconv"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/httpstream/wsstream"
	"k8s.io/apimachinery/pkg/util/proxy"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/endpoints/filters"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/apiserver/pkg/registry/rest"
	translator "k8s.io/apiserver/pkg/util/proxy"
)

// podStreamREST serves pods/exec and pods/attach (`kubectl exec`, `kubectl attach`): the
// kubelet's /exec or /attach of the container, over SPDY. kubectl speaks WebSocket
// (v5.channel.k8s.io) first: Core translates that to SPDY with k8s.io/apiserver's stream
// translator, as kube-apiserver does for kubelets that speak only SPDY; an SPDY client is
// proxied as it is.
type podStreamREST struct {
	pods       rest.Getter
	kubelets   *kubelets
	authorizer authorizer.Authorizer
	attach     bool // pods/attach, not pods/exec
}

var _ rest.Connecter = &podStreamREST{}

func (r *podStreamREST) New() runtime.Object {
	if r.attach {
		return &corev1.PodAttachOptions{}
	}
	return &corev1.PodExecOptions{}
}
func (r *podStreamREST) Destroy()                 {}
func (r *podStreamREST) ConnectMethods() []string { return []string{"GET", "POST"} }

func (r *podStreamREST) NewConnectOptions() (runtime.Object, bool, string) {
	return r.New(), false, ""
}

func (r *podStreamREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	// A WebSocket starts as a GET, which RBAC sees as "get pods/exec"; exec needs "create".
	if err := authorizeCreate(ctx, r.authorizer); err != nil {
		return nil, err
	}
	var container string
	var streams translator.Options
	query := url.Values{}
	switch o := opts.(type) {
	case *corev1.PodExecOptions:
		container, streams = o.Container, translator.Options{Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr, Tty: o.TTY}
		query["command"] = o.Command
	case *corev1.PodAttachOptions:
		container, streams = o.Container, translator.Options{Stdin: o.Stdin, Stdout: o.Stdout, Stderr: o.Stderr, Tty: o.TTY}
	default:
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid options object: %T", opts))
	}
	for param, on := range map[string]bool{corev1.ExecStdinParam: streams.Stdin,
		corev1.ExecStdoutParam: streams.Stdout, corev1.ExecStderrParam: streams.Stderr, corev1.ExecTTYParam: streams.Tty} {
		if on {
			query.Set(param, "1")
		}
	}
	obj, err := r.pods.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	pod := obj.(*corev1.Pod)
	if container, err = logContainer(pod, container); err != nil {
		return nil, err
	}
	if pod.Spec.NodeName == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
	}
	loc, err := r.kubelets.location(ctx, pod.Spec.NodeName)
	if err != nil {
		return nil, err
	}
	sub := "exec"
	if r.attach {
		sub = "attach"
	}
	loc.Path = "/" + sub + "/" + pod.Namespace + "/" + pod.Name + "/" + container
	loc.RawQuery = query.Encode()
	return kubeletHop(pod.Spec.NodeName, loc, true, func(loc *url.URL) http.Handler {
		spdy := proxy.NewUpgradeAwareHandler(loc, r.kubelets.transport, false, true, proxy.NewErrorResponder(responder))
		websocket := translator.NewStreamTranslatorHandler(loc, r.kubelets.transport, 0, streams)
		return translator.NewTranslatingHandler(spdy, websocket, wsstream.IsWebSocketRequestWithStreamCloseProtocol)
	}), nil
}

// podPortForwardREST serves pods/portforward (`kubectl port-forward`): the kubelet's
// /portForward of the pod, over SPDY; kubectl tunnels its SPDY through a WebSocket
// (portforward.k8s.io over SPDY/3.1+), which Core unwraps with k8s.io/apiserver's tunneling handler.
type podPortForwardREST struct {
	pods       rest.Getter
	kubelets   *kubelets
	authorizer authorizer.Authorizer
}

var _ rest.Connecter = &podPortForwardREST{}

func (r *podPortForwardREST) New() runtime.Object      { return &corev1.PodPortForwardOptions{} }
func (r *podPortForwardREST) Destroy()                 {}
func (r *podPortForwardREST) ConnectMethods() []string { return []string{"GET", "POST"} }

func (r *podPortForwardREST) NewConnectOptions() (runtime.Object, bool, string) {
	return &corev1.PodPortForwardOptions{}, false, ""
}

func (r *podPortForwardREST) Connect(ctx context.Context, name string, opts runtime.Object, responder rest.Responder) (http.Handler, error) {
	if err := authorizeCreate(ctx, r.authorizer); err != nil {
		return nil, err
	}
	o, ok := opts.(*corev1.PodPortForwardOptions)
	if !ok {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("invalid options object: %T", opts))
	}
	obj, err := r.pods.Get(ctx, name, &metav1.GetOptions{})
	if err != nil {
		return nil, err
	}
	pod := obj.(*corev1.Pod)
	if pod.Spec.NodeName == "" {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("pod %s does not have a host assigned", name))
	}
	loc, err := r.kubelets.location(ctx, pod.Spec.NodeName)
	if err != nil {
		return nil, err
	}
	loc.Path = "/portForward/" + pod.Namespace + "/" + pod.Name
	query := url.Values{}
	for _, port := range o.Ports {
		query.Add("port", strconv.Itoa(int(port)))
	}
	loc.RawQuery = query.Encode()
	return kubeletHop(pod.Spec.NodeName, loc, true, func(loc *url.URL) http.Handler {
		spdy := proxy.NewUpgradeAwareHandler(loc, r.kubelets.transport, false, true, proxy.NewErrorResponder(responder))
		return translator.NewTranslatingHandler(spdy, translator.NewTunnelingHandler(spdy), wsstream.IsWebSocketRequestWithTunnelingProtocol)
	}), nil
}

// authorizeCreate checks that the caller may create the subresource it connects to, whatever
// the method (kube-apiserver's AuthorizePodWebsocketUpgradeCreatePermission).
func authorizeCreate(ctx context.Context, a authorizer.Authorizer) error {
	info, ok := genericapirequest.RequestInfoFrom(ctx)
	if !ok {
		return apierrors.NewInternalError(errors.New("no request info in context"))
	}
	if info.Verb == "create" || a == nil {
		return nil
	}
	attrs, err := filters.GetAuthorizerAttributes(ctx)
	if err != nil {
		return apierrors.NewInternalError(fmt.Errorf("authorizer attributes: %w", err))
	}
	decision, reason, err := a.Authorize(ctx, createVerb{attrs})
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if decision != authorizer.DecisionAllow {
		return apierrors.NewForbidden(corev1.Resource(info.Resource), info.Name, errors.New(reason))
	}
	return nil
}

// createVerb is the attributes of a request, with the verb create.
type createVerb struct{ authorizer.Attributes }

func (createVerb) GetVerb() string { return "create" }
