// Command chain runs the Kubernetes API server chain. See commands and servers/chain.
package main

import (
	"os"

	"k8s.io/component-base/cli"

	"github.com/apichain/apichain/commands"
)

func main() {
	os.Exit(cli.Run(commands.NewCommand()))
}
