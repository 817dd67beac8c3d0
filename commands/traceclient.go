package commands

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/apichain/apichain/internal/tracing"
)

// traceReaderRole is the ClusterRole that lets a user read the chain's traces (the chain's
// bootstrap policy has it).
const traceReaderRole = "apichain:trace-reader"

// chainClient reads a running chain's traces, as the user of a kubeconfig.
type chainClient struct {
	config *rest.Config
	client *http.Client
	host   string // the chain's URL, for messages
}

// newChainClient finds the chain as kubectl does: --kubeconfig, else KUBECONFIG, else
// ~/.kube/config; its current context unless context names another.
func newChainClient(kubeconfig, context string) (*chainClient, error) {
	rules := clientcmd.NewDefaultClientConfigLoadingRules()
	rules.ExplicitPath = kubeconfig
	config, err := clientcmd.NewNonInteractiveDeferredLoadingClientConfig(rules, &clientcmd.ConfigOverrides{CurrentContext: context}).ClientConfig()
	if clientcmd.IsEmptyConfig(err) {
		return nil, errors.New("no kubeconfig names a chain: set KUBECONFIG to the admin.kubeconfig the chain prints as it starts, or pass --kubeconfig")
	}
	if err != nil {
		return nil, fmt.Errorf("reading the kubeconfig: %w", err)
	}
	// A stream lasts as long as the user follows it: no timeout.
	config.Timeout = 0
	client, err := rest.HTTPClientFor(config)
	if err != nil {
		return nil, fmt.Errorf("a client for %s: %w", config.Host, err)
	}
	return &chainClient{config: config, client: client, host: config.Host}, nil
}

// traces asks for the chain's traces with query: without follow=true, those it keeps (a JSON
// array); with it, a stream of them, one a line (after since=<seq>; without since, from now on).
// The caller closes the body.
func (c *chainClient) traces(ctx context.Context, query url.Values) (io.ReadCloser, error) {
	u, err := url.Parse(strings.TrimSuffix(c.host, "/") + tracing.TracesPath)
	if err != nil {
		return nil, fmt.Errorf("the kubeconfig's server %q: %w", c.host, err)
	}
	u.RawQuery = query.Encode()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := c.client.Do(req)
	if err != nil {
		return nil, c.unreachable(err)
	}
	if resp.StatusCode == http.StatusOK {
		return resp.Body, nil
	}
	defer resp.Body.Close()
	return nil, c.refused(ctx, resp)
}

// unreachable says that no chain answers, and why, in a word where the network has one.
func (c *chainClient) unreachable(err error) error {
	reason := err.Error()
	var uerr *url.Error
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		reason = "connection refused"
	case errors.As(err, &uerr):
		reason = uerr.Err.Error()
	}
	return fmt.Errorf("no chain answers at %s: %s", c.host, reason)
}

// refused turns the chain's answer other than 200 into what the user can do about it.
func (c *chainClient) refused(ctx context.Context, resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := strings.TrimSpace(string(body))
	var status metav1.Status
	if json.Unmarshal(body, &status) == nil && status.Message != "" {
		msg = status.Message
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized:
		return fmt.Errorf("the chain at %s does not know who you are (401 Unauthorized): check the credentials of the kubeconfig", c.host)
	case http.StatusForbidden:
		who, name := "you", "<you>"
		if info, err := c.selfReview(ctx); err == nil && info.Username != "" {
			who, name = fmt.Sprintf("you (user %q, groups %s)", info.Username, strings.Join(info.Groups, ",")), info.Username
		}
		return fmt.Errorf("the chain at %s does not let %s read its traces (403 Forbidden: %s); "+
			"reading them needs the ClusterRole %s, e.g.\n\tkubectl create clusterrolebinding trace-readers --clusterrole=%s --user=%s",
			c.host, who, msg, traceReaderRole, traceReaderRole, name)
	default:
		return fmt.Errorf("the chain at %s answered %s: %s", c.host, resp.Status, msg)
	}
}

// selfReview asks the chain who it takes the user to be (a SelfSubjectReview).
func (c *chainClient) selfReview(ctx context.Context) (authenticationv1.UserInfo, error) {
	clients, err := kubernetes.NewForConfig(c.config)
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	review, err := clients.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	return review.Status.UserInfo, nil
}
