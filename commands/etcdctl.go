package commands

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	clientv3 "go.etcd.io/etcd/client/v3"
	apiextensionsapiserver "k8s.io/apiextensions-apiserver/pkg/apiserver"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	aggregatorscheme "k8s.io/kube-aggregator/pkg/apiserver/scheme"
	"sigs.k8s.io/yaml"

	"github.com/apichain/apichain/internal/etcd"
	"github.com/apichain/apichain/servers/core"
)

// newEtcdctlCommand is `chain etcdctl get`: a read-only look at what the chain stores, with each
// value decoded the way the servers decode it (protobuf for built-in objects, JSON for custom
// resources), so that no etcdctl is needed to see /registry.
func newEtcdctlCommand() *cobra.Command {
	dataDir := ".chain"
	var prefix, keysOnly bool
	output := "yaml"
	cmd := &cobra.Command{
		Use:   "etcdctl get KEY",
		Short: "Read what the chain stores in etcd (read-only), decoded",
		Long: `etcdctl get reads keys of the running chain's etcd and prints each value decoded:
	chain etcdctl get /registry/configmaps/default/kube-root-ca.crt
	chain etcdctl get --prefix --keys-only /registry/apiregistration.k8s.io`,
		Args:         cobra.ExactArgs(2),
		SilenceUsage: true,
		RunE: func(cmd *cobra.Command, args []string) error {
			if args[0] != "get" {
				return fmt.Errorf("only get is supported: %q", args[0])
			}
			if output != "yaml" && output != "json" {
				return fmt.Errorf("-o must be yaml or json, not %q", output)
			}
			return etcdGet(cmd.Context(), cmd.OutOrStdout(), dataDir, args[1], prefix, keysOnly, output)
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", dataDir, "The chain's data dir (it names the etcd in use).")
	cmd.Flags().BoolVar(&prefix, "prefix", false, "Get every key that starts with KEY.")
	cmd.Flags().BoolVar(&keysOnly, "keys-only", false, "Print the keys only.")
	cmd.Flags().StringVarP(&output, "output", "o", output, "How to print values: yaml or json.")
	return cmd
}

func etcdGet(ctx context.Context, out io.Writer, dataDir, key string, prefix, keysOnly bool, output string) error {
	endpoints, err := etcd.ReadEndpoints(dataDir)
	if err != nil {
		return fmt.Errorf("is the chain running with --data-dir %s? %w", dataDir, err)
	}
	tlsConfig, err := etcd.ReadClientTLS(dataDir)
	if err != nil {
		return err
	}
	client, err := clientv3.New(clientv3.Config{Endpoints: endpoints, DialTimeout: 5 * time.Second, TLS: tlsConfig})
	if err != nil {
		return err
	}
	defer client.Close()
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	var opts []clientv3.OpOption
	if prefix {
		opts = append(opts, clientv3.WithPrefix())
	}
	if keysOnly {
		opts = append(opts, clientv3.WithKeysOnly())
	}
	resp, err := client.Get(ctx, key, opts...)
	if err != nil {
		return fmt.Errorf("reading etcd (is the chain running?): %w", err)
	}
	if len(resp.Kvs) == 0 {
		return fmt.Errorf("%s: no such key", key)
	}
	decoders := storedDecoders()
	for _, kv := range resp.Kvs {
		fmt.Fprintln(out, string(kv.Key))
		if keysOnly {
			continue
		}
		text, err := decodeStored(decoders, kv.Value, output)
		if err != nil {
			text = fmt.Sprintf("(%d bytes that no server of the chain decodes: %v)\n", len(kv.Value), err)
		}
		fmt.Fprint(out, text)
	}
	return nil
}

// storedDecoders decode what each server stores: Core's objects, CRDs, APIServices; custom
// resources are plain JSON.
func storedDecoders() []runtime.Decoder {
	coreScheme, err := core.NewScheme()
	if err != nil {
		panic(err) // the scheme is static: a failure here is a programming error
	}
	return []runtime.Decoder{
		serializer.NewCodecFactory(coreScheme).UniversalDeserializer(),
		apiextensionsapiserver.Codecs.UniversalDeserializer(),
		aggregatorscheme.Codecs.UniversalDeserializer(),
	}
}

var protobufPrefix = []byte("k8s\x00")

func decodeStored(decoders []runtime.Decoder, value []byte, output string) (string, error) {
	var doc []byte
	if bytes.HasPrefix(value, protobufPrefix) {
		var errs []error
		for _, d := range decoders {
			obj, _, err := d.Decode(value, nil, nil)
			if err == nil {
				doc, err = json.Marshal(obj)
				if err == nil {
					break
				}
			}
			errs = append(errs, err)
		}
		if doc == nil {
			return "", errors.Join(errs...)
		}
	} else if json.Valid(value) {
		doc = value
	} else {
		return "", errors.New("neither protobuf nor JSON")
	}
	if output == "json" {
		var buf bytes.Buffer
		if err := json.Indent(&buf, doc, "", "  "); err != nil {
			return "", err
		}
		return buf.String() + "\n", nil
	}
	y, err := yaml.JSONToYAML(doc)
	return string(y), err
}
