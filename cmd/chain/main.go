// Command chain runs the Kubernetes API server chain. See servers/chain.
package main

import (
	"os"

	"k8s.io/component-base/cli"

	"github.com/apichain/apichain/servers/chain"
)

func main() {
	os.Exit(cli.Run(chain.NewCommand()))
}
